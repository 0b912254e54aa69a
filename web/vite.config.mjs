import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web app's build (npm run build). Output in dist/web beside the compiled
 * server, which serves index.html for the app's pages and dist/web/pkg/* as
 * public static files (spec 5.5 `/pkg/*`). `base: './'`: every URL the
 * bundle writes is relative, so the app also works under HA's ingress prefix.
 * Nothing of Vite runs at service run time.
 */
export default defineConfig({
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'pkg',
    target: 'es2022',
    modulePreload: { polyfill: false },
    // .vite/manifest.json: which chunks the first load pulls in (the bundle-size benchmark reads it).
    manifest: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 200,
  },
});
