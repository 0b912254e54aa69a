import http from 'node:http';
import { hashPassword } from '../../server/src/auth/passwords';
import { hashSecret, newSecret } from '../../server/src/auth/secrets';
import type { Service } from '../../server/src/main';

/** Shared by the auth tests: raw HTTP requests, auth configs, and accounts made through the store. */

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Empty when only the head was read. */
  text: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with the caller's content type and length headers), instead of `body`. */
  rawBody?: string | Buffer;
  /** Resolve on the response head and drop the connection (SSE streams never end). */
  headersOnly?: boolean;
}

/** One request on its own connection (no keep-alive pool left behind), from 127.0.0.1. */
export function send(port: number, options: RawRequest): Promise<RawResponse> {
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...options.headers };
  if (payload !== undefined && options.rawBody === undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers, agent: false },
      (res) => {
        if (options.headersOnly) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
          res.destroy();
          req.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!options.headersOnly) reject(err);
    });
    req.end(payload);
  });
}

/** The JSON body, or null for another content type (metrics text, raw TOML). */
export function json(response: RawResponse): Record<string, unknown> | null {
  if (!String(response.headers['content-type']).startsWith('application/json')) return null;
  return JSON.parse(response.text) as Record<string, unknown>;
}

export interface AuthToml {
  mode: 'disabled' | 'required';
  session_ttl_days?: number;
  trusted_networks?: string[];
  trusted_proxies?: string[];
  proxy_auth_header?: string;
  proxy_auth_allow?: string[];
}

/** A minimal valid config with the given [auth] table. */
export function configToml(auth: AuthToml): string {
  const lines = ['schema_version = 2', '[deployment.location]', 'lat = 40.7', 'lon = -74.0', '[auth]'];
  for (const [key, value] of Object.entries(auth)) lines.push(`${key} = ${JSON.stringify(value)}`);
  return `${lines.join('\n')}\n`;
}

export interface SeededOwner {
  username: string;
  password: string;
  /** A live session's cookie secret. */
  session: string;
  /** A session whose expiry has passed. */
  expiredSession: string;
  /** A live API token's plaintext. */
  token: string;
}

export const OWNER = 'owner';
export const OWNER_PASSWORD = 'tidy-Lawn-sprinkler-42';

/**
 * The owner account, a session, an expired session and an API token, written
 * straight into the store (no login request, so the login limiter stays untouched).
 */
export async function seedOwner(service: Service): Promise<SeededOwner> {
  const store = service.store;
  if (!store) throw new Error('the test service has no database');
  const now = Math.floor(Date.now() / 1000);
  const account = await createOwnerAccount(service);
  const session = newSecret('rcs');
  const expiredSession = newSecret('rcs');
  store.sessions.create({
    token_hash: hashSecret(session),
    account_id: account.id,
    created_epoch: now,
    expires_epoch: now + 86400,
  });
  store.sessions.create({
    token_hash: hashSecret(expiredSession),
    account_id: account.id,
    created_epoch: now - 2 * 86400,
    expires_epoch: now - 60,
  });
  const token = newSecret('rct');
  store.tokens.create({ name: 'matrix', token_hash: hashSecret(token), created_epoch: now });
  return { username: OWNER, password: OWNER_PASSWORD, session, expiredSession, token };
}

/** Only the owner account (OWNER / OWNER_PASSWORD), written straight into the store. */
export async function createOwnerAccount(service: Service): Promise<{ id: number }> {
  const account = service.store?.accounts.createOwner({
    username: OWNER,
    password_hash: await hashPassword(OWNER_PASSWORD),
    created_epoch: Math.floor(Date.now() / 1000),
  });
  if (!account) throw new Error('no database, or an owner account already exists');
  return account;
}

/** The `name=value` part of a Set-Cookie header, for sending back as Cookie. */
export function cookiePair(setCookie: string | string[] | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  const pair = first?.split(';', 1)[0];
  if (!pair) throw new Error('no Set-Cookie in the response');
  return pair;
}
