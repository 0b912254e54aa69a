import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/**
 * A `fetch` over node:http and node:https for the service's own outbound calls
 * (forecast providers, weather sources, controllers). Node's global fetch
 * loads undici and compiles its WebAssembly parser on the first call: about
 * 20 MB of RSS in an idle service, against under 2 MB for node:http (docs/
 * architecture.md "Idle memory").
 *
 * It behaves as fetch does where the service depends on it: `redirect`
 * ('follow' up to 20 hops, 303 and a POST's 301/302 become a GET; 'error';
 * 'manual'), the abort signal (rejects with the signal's reason, a
 * TimeoutError for AbortSignal.timeout), transport failures (a TypeError
 * 'fetch failed' whose `cause` is the socket error, with its `code`), TLS
 * checked against Node's CA store, gzip/deflate/br answers decoded. The
 * response offers status, statusText, ok, url, redirected, headers (get, has,
 * forEach, entries), text(), json(), arrayBuffer() and body.cancel(); a
 * request whose body is not a string, bytes or URLSearchParams goes to the
 * global fetch instead.
 */

const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

type Body = string | Uint8Array | null;

export const httpFetch: typeof fetch = async (input, init = {}) => {
  const body = encodeBody(init.body);
  if (body === undefined || (typeof input !== 'string' && !(input instanceof URL))) {
    return fetch(input, init);
  }
  const headers = requestHeaders(init.headers, body.contentType);
  return follow(new URL(input), (init.method ?? 'GET').toUpperCase(), headers, body.bytes, init, 0);
};

async function follow(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Body,
  init: RequestInit,
  hops: number,
): Promise<Response> {
  const message = await send(url, method, headers, body, init.signal ?? undefined);
  const location = message.headers.location;
  const mode = init.redirect ?? 'follow';
  if (!REDIRECT_STATUSES.has(message.statusCode ?? 0) || location === undefined || mode === 'manual') {
    return new HttpResponse(message, url, hops > 0, init.signal ?? undefined) as unknown as Response;
  }
  message.resume();
  if (mode === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
  if (hops >= MAX_REDIRECTS)
    throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
  const next = new URL(location, url);
  const status = message.statusCode ?? 0;
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const nextHeaders = { ...headers };
  if (toGet) {
    delete nextHeaders['content-type'];
    delete nextHeaders['content-length'];
  }
  if (next.origin !== url.origin) {
    delete nextHeaders.authorization;
    delete nextHeaders.cookie;
  }
  return follow(next, toGet ? 'GET' : method, nextHeaders, toGet ? null : body, init, hops + 1);
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Body,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
      return;
    }
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers });
    const onAbort = (): void => {
      request.destroy();
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('response', (message) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(message);
    });
    request.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? (signal.reason as Error) : new TypeError('fetch failed', { cause: err }));
    });
    request.end(body ?? undefined);
  });
}

function encodeBody(body: RequestInit['body']): { bytes: Body; contentType: string | null } | undefined {
  if (body === undefined || body === null) return { bytes: null, contentType: null };
  if (typeof body === 'string') return { bytes: body, contentType: 'text/plain;charset=UTF-8' };
  if (body instanceof Uint8Array) return { bytes: body, contentType: null };
  if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body), contentType: null };
  if (body instanceof URLSearchParams) {
    return { bytes: body.toString(), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  }
  return undefined;
}

function requestHeaders(given: RequestInit['headers'], contentType: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    accept: '*/*',
    'accept-encoding': 'gzip, deflate, br',
    'user-agent': 'node',
  };
  const entries: Iterable<readonly [string, unknown]> =
    given === undefined
      ? []
      : Array.isArray(given) || Symbol.iterator in given
        ? (given as Iterable<readonly [string, unknown]>)
        : Object.entries(given);
  for (const [name, value] of entries) headers[name.toLowerCase()] = String(value);
  if (contentType !== null && headers['content-type'] === undefined) headers['content-type'] = contentType;
  return headers;
}

/** The response headers with the fetch Headers reading methods (names lower case). */
class HttpHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) callback(value, name);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw).sort()) yield [name, this.get(name) ?? ''];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: HttpHeaders;
  readonly body: { cancel(): Promise<void> } | null;
  bodyUsed = false;

  constructor(
    private readonly message: IncomingMessage,
    private readonly requested: URL,
    readonly redirected: boolean,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new HttpHeaders(message.headers);
    this.body = NULL_BODY_STATUSES.has(this.status)
      ? null
      : {
          cancel: () => {
            message.destroy();
            return Promise.resolve();
          },
        };
  }

  get url(): string {
    return this.requested.href;
  }

  async text(): Promise<string> {
    return Buffer.from(await this.arrayBuffer()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.bodyUsed) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.bodyUsed = true;
    const stream = decoded(this.message);
    const { signal } = this;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onAbort = (): void => {
        stream.destroy();
        reject(signal?.reason as Error);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(new TypeError('terminated', { cause: err }));
      });
      stream.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        const all = Buffer.concat(chunks);
        resolve(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer);
      });
    });
  }
}

/** The body with its content-coding removed, as fetch hands it over. */
function decoded(message: IncomingMessage): Readable {
  const coding = String(message.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : null;
  if (decoder === null) return message;
  message.on('error', (err) => decoder.destroy(err));
  return message.pipe(decoder);
}
