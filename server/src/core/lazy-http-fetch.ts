import type { httpFetch as HttpFetch } from './http-fetch';

/**
 * core/http-fetch.ts's fetch, loaded with the first outbound call: the demo
 * makes none, and V8 keeps every loaded module's source in the heap.
 */
export const lazyHttpFetch: typeof HttpFetch = (input, init) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./http-fetch') as typeof import('./http-fetch')).httpFetch(input, init);
