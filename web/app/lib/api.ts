import { appUrl } from './base';

/**
 * Every call to the service's API goes through here: relative URLs (ingress),
 * the session cookie, and one error type that keeps the server's message,
 * `code` and request id so the UI can show them (spec 7).
 */

export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly requestId: string | null,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (raw TOML, multipart). */
  body?: BodyInit;
  contentType?: string;
  signal?: AbortSignal;
}

export function apiUrl(path: string): string {
  return appUrl(`api/v1/${path.replace(/^\/+/, '')}`);
}

async function send(path: string, options: CallOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.contentType) headers['Content-Type'] = options.contentType;
  try {
    return await fetch(apiUrl(path), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiFailure(
      'The service cannot be reached. Check the network and try again.',
      0,
      'network',
      null,
      null,
    );
  }
}

async function failure(response: Response): Promise<ApiFailure> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    code?: unknown;
    request?: { id?: unknown };
  };
  const message =
    typeof fields.error === 'string' ? fields.error : `${response.status} ${response.statusText}`.trim();
  const code = typeof fields.code === 'string' ? fields.code : null;
  const requestId =
    typeof fields.request?.id === 'string' ? fields.request.id : response.headers.get('x-service-request-id');
  return new ApiFailure(message, response.status, code, requestId, body);
}

/** Listeners told when any call answers 401 (the app sends the user to the login page). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Calls the API and parses JSON; throws ApiFailure on any non-2xx answer. */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (!response.ok) {
    const error = await failure(response);
    if (response.status === 401 && !path.startsWith('auth/')) unauthorizedListeners.forEach((l) => l());
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

/** Like api() but returns the raw text (raw TOML, CSV). */
export async function apiText(path: string, options: CallOptions = {}): Promise<string> {
  const response = await send(path, options);
  if (!response.ok) throw await failure(response);
  return response.text();
}
