import type { ComponentChildren } from 'preact';
import type { Route } from '../lib/router';

/** Header with the app's navigation (a bar on desktop, wrapping on a phone) and the page body. */

const NAV: { path: string; label: string; pages: Route['page'][] }[] = [
  { path: '', label: 'Dashboard', pages: ['dashboard'] },
  { path: 'zones', label: 'Zones', pages: ['zones', 'zone'] },
  { path: 'schedules', label: 'Schedules', pages: ['schedules'] },
  { path: 'history', label: 'History', pages: ['history'] },
  { path: 'tuning', label: 'Tuning', pages: ['tuning'] },
  { path: 'settings', label: 'Settings', pages: ['settings', 'devices'] },
];

export function Layout({ route, children }: { route: Route; children: ComponentChildren }) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="app-header">
        <a class="brand" href="./" data-route="">
          <img src="icon.png" alt="" width={28} height={28} />
          <span>Raincheck</span>
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.path}>
                <a
                  href={item.path || './'}
                  data-route={item.path}
                  aria-current={item.pages.includes(route.page) ? 'page' : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
