import { authFailed, rateLimited, unreachable } from './errors';

/**
 * One HTTP call to a controller with a timeout and the spec 7 error mapping:
 * transport failures and timeouts -> controller_unreachable; 401/403 ->
 * controller_auth_failed (never passed through as a 401); 429 ->
 * controller_rate_limited with the vendor's remaining-calls header; any other
 * non-2xx -> controller_unreachable naming the status. The vendor's body is
 * never echoed (it may carry tokens); URLs are reported without query strings
 * (OpenSprinkler puts the password hash there).
 */

export interface ControllerCallOptions {
  controllerId: string;
  fetch: typeof fetch;
  timeoutMs: number;
  /** Header carrying the remaining-calls count on rate-limited answers. */
  rateLimitHeader?: string;
  /** Non-2xx statuses handed back to the caller instead of mapped (a 404 that means "no such page"). */
  passStatuses?: readonly number[];
}

export async function controllerCall(
  options: ControllerCallOptions,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  const { controllerId } = options;
  let response: Response;
  try {
    response = await options.fetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (err) {
    const name = (err as { name?: unknown } | null)?.name;
    const detail =
      name === 'TimeoutError' || name === 'AbortError'
        ? `no answer from ${safeUrl(url)} within ${Math.round(options.timeoutMs / 1000)} s`
        : `cannot reach ${safeUrl(url)} (${describeCause(err)})`;
    throw unreachable(controllerId, detail);
  }
  if (response.ok || options.passStatuses?.includes(response.status)) return response;
  await response.body?.cancel().catch(() => undefined);
  const where = `${init.method ?? 'GET'} ${safeUrl(url)}`;
  if (response.status === 401 || response.status === 403) {
    throw authFailed(controllerId, `HTTP ${response.status} on ${where}`);
  }
  if (response.status === 429) {
    const header = options.rateLimitHeader ?? 'x-ratelimit-remaining';
    throw rateLimited(controllerId, response.headers.get(header), `HTTP 429 on ${where}`);
  }
  throw unreachable(controllerId, `HTTP ${response.status} on ${where}`);
}

/** Reads a JSON body; a body that is not JSON is a vendor error (unreachable). */
export async function readJson(
  controllerId: string,
  response: Response,
  timeoutMs = 10_000,
): Promise<unknown> {
  let text: string;
  try {
    text = await withTimeout(response.text(), timeoutMs);
  } catch {
    throw unreachable(controllerId, `the response from ${safeUrl(response.url)} could not be read`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unreachable(controllerId, `the response from ${safeUrl(response.url)} is not JSON`);
  }
}

/** The URL without credentials or query string, for messages and logs. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'transport error';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
