import { render } from 'preact';
import { App } from './app';
import { appRoot, appUrl } from './lib/base';
import { interceptLinks } from './lib/router';
import './styles.css';

appRoot();
const mount = document.getElementById('app');
if (mount) {
  mount.textContent = '';
  interceptLinks(document.body);
  render(<App />, mount);
}

// The service worker (spec 4.1) gives an installable app and an offline shell; its scope is the app root.
if ('serviceWorker' in navigator && window.isSecureContext) {
  navigator.serviceWorker.register(appUrl('sw.js')).catch(() => undefined);
}
