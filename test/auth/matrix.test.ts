import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { newSecret } from '../../server/src/auth/secrets';
import { bootService, type BootedService } from '../helpers/service';
import { configToml, json, seedOwner, send, type AuthToml, type SeededOwner } from './auth-helpers';

/**
 * The access matrix: every public path of spec 5.5, a protected API path, an
 * HTML page, a stream and the privileged surface, against every way a request
 * can present itself (credentials, network position, proxies), in both auth
 * modes. The expected answer of each row comes from `expectation`, a direct
 * transcription of spec 5.2-5.8, not from the implementation.
 *
 * Every request comes from 127.0.0.1 (the raw peer is always loopback); other
 * client addresses are simulated through a trusted proxy (the loopback peer)
 * and X-Forwarded-For.
 */

type Mode = 'disabled' | 'required';

/**
 * public: spec 5.5; public-until-setup: /setup, /api/v1/wizard/*; privileged: spec 5.8;
 * setup: public at the gate, then the network rules of 5.8 in both modes (issue 16).
 */
type Access = 'public' | 'public-until-setup' | 'protected' | 'privileged' | 'setup';

interface PathCase {
  label: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  access: Access;
  /** Sent with `Accept: text/html` (a browser navigation). */
  html?: boolean;
  /** A path ending in /stream: the only place an `access_token` query credential counts. */
  stream?: boolean;
  body?: unknown;
  /** The answer once the request is let through (pages and /pkg/ from the fake build in WEB_DIR). */
  ok: number;
  okCode?: string;
}

const PATHS: PathCase[] = [
  { label: 'static file', method: 'GET', path: '/favicon.ico', access: 'public', ok: 404 },
  { label: 'static file (/pkg)', method: 'GET', path: '/pkg/app.js', access: 'public', ok: 200 },
  { label: 'service worker', method: 'GET', path: '/sw.js', access: 'public', ok: 200 },
  { label: 'login page', method: 'GET', path: '/login', access: 'public', html: true, ok: 200 },
  { label: 'info', method: 'GET', path: '/api/v1/info', access: 'public', ok: 200 },
  { label: 'auth status', method: 'GET', path: '/api/v1/auth/status', access: 'public', ok: 200 },
  { label: 'auth status (legacy)', method: 'GET', path: '/api/auth/status', access: 'public', ok: 200 },
  {
    label: 'login (empty body)',
    method: 'POST',
    path: '/api/v1/auth/login',
    access: 'public',
    body: {},
    ok: 400,
    okCode: 'invalid_body',
  },
  {
    label: 'ingest webhook (root)',
    method: 'POST',
    path: '/ingest/webhook/nope',
    access: 'public',
    body: {},
    ok: 404,
    okCode: 'source_unknown',
  },
  {
    label: 'ingest webhook (v1)',
    method: 'POST',
    path: '/api/v1/ingest/webhook/nope',
    access: 'public',
    body: {},
    ok: 404,
    okCode: 'source_unknown',
  },
  {
    // A weak password: a let-through request is refused by the password rule, so no owner is made.
    label: 'owner setup (weak password)',
    method: 'POST',
    path: '/api/v1/auth/setup',
    access: 'setup',
    body: { username: 'owner', password: 'short' },
    ok: 400,
    okCode: 'password_too_weak',
  },
  { label: 'health', method: 'GET', path: '/api/v1/health', access: 'public', ok: 200 },
  { label: 'metrics', method: 'GET', path: '/metrics', access: 'public', ok: 200 },
  { label: 'docs', method: 'GET', path: '/docs/x', access: 'public', ok: 404 },
  { label: 'wizard API', method: 'GET', path: '/api/v1/wizard/x', access: 'public-until-setup', ok: 404 },
  { label: 'setup page', method: 'GET', path: '/setup', access: 'public-until-setup', html: true, ok: 200 },
  { label: 'snapshot', method: 'GET', path: '/api/v1/snapshot', access: 'protected', ok: 200 },
  { label: 'zone photo', method: 'GET', path: '/site/photos/x.jpg', access: 'protected', ok: 404 },
  { label: 'zones page', method: 'GET', path: '/zones', access: 'protected', html: true, ok: 200 },
  { label: 'stream', method: 'GET', path: '/api/v1/stream', access: 'protected', stream: true, ok: 200 },
  { label: 'raw config read', method: 'GET', path: '/api/v1/config/raw', access: 'privileged', ok: 200 },
  {
    label: 'config write (invalid body)',
    method: 'PUT',
    path: '/api/v1/config',
    access: 'privileged',
    body: {},
    ok: 422,
    okCode: 'config_invalid',
  },
];

/** The auth tables the scenarios run under (plus `mode`). */
const NETWORKS = {
  /** An internet range is trusted and an identity header is named, but no proxy is trusted. */
  direct: { trusted_networks: ['8.8.8.0/24'], proxy_auth_header: 'X-Remote-User' },
  /** The loopback peer is a trusted proxy that names its user in X-Remote-User. */
  proxied: {
    trusted_proxies: ['127.0.0.1/32'],
    trusted_networks: ['192.168.1.0/24'],
    proxy_auth_header: 'X-Remote-User',
    proxy_auth_allow: ['alice'],
  },
  /** The loopback client itself is on a trusted network. */
  trustedLoopback: { trusted_networks: ['127.0.0.0/8'] },
} satisfies Record<string, Omit<AuthToml, 'mode'>>;

type Network = keyof typeof NETWORKS;

interface Scenario {
  label: string;
  network: Network;
  /** An owner account exists. */
  account: boolean;
  /** none; invalid (unknown, expired); valid (bearer or cookie); query (a valid token in `access_token`). */
  credential: 'none' | 'invalid' | 'valid' | 'query';
  headers?: (owner: SeededOwner) => Record<string, string>;
  /** What spec 5.7 makes of the request: the derived client address ... */
  client: 'loopback' | 'private' | 'public';
  /** ... whether it lies in trusted_networks ... */
  trustedNetwork: boolean;
  /** ... whether a trusted proxy vouches for a user (5.8) ... */
  proxyIdentity: boolean;
  /** ... and whether a forwarding header arrived while trusted_proxies is empty. */
  forwardedUntrusted: boolean;
}

/** The defaults of a row: no credential, no trust. */
const anonymous: Pick<Scenario, 'credential' | 'trustedNetwork' | 'proxyIdentity' | 'forwardedUntrusted'> = {
  credential: 'none',
  trustedNetwork: false,
  proxyIdentity: false,
  forwardedUntrusted: false,
};

const SCENARIOS: Scenario[] = [
  // direct: the client is the loopback peer
  { ...anonymous, label: 'no credentials (loopback)', network: 'direct', account: true, client: 'loopback' },
  {
    ...anonymous,
    label: 'unknown bearer token',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'invalid',
    headers: () => ({ Authorization: 'Bearer rct_not-a-real-token' }),
  },
  {
    ...anonymous,
    label: 'valid bearer token',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'valid',
    headers: (owner) => ({ Authorization: `Bearer ${owner.token}` }),
  },
  {
    ...anonymous,
    label: 'valid token in ?access_token',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'query',
  },
  {
    ...anonymous,
    label: 'session cookie',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'valid',
    headers: (owner) => ({ Cookie: `service_session=${owner.session}` }),
  },
  {
    ...anonymous,
    label: 'expired session cookie',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'invalid',
    headers: (owner) => ({ Cookie: `service_session=${owner.expiredSession}` }),
  },
  {
    ...anonymous,
    label: 'bad bearer token before a valid cookie (bearer wins)',
    network: 'direct',
    account: true,
    client: 'loopback',
    credential: 'invalid',
    headers: (owner) => ({ Authorization: 'Bearer nope', Cookie: `service_session=${owner.session}` }),
  },
  {
    ...anonymous,
    label: 'untrusted proxy: X-Forwarded-For 8.8.8.8 (a trusted network) ignored',
    network: 'direct',
    account: true,
    client: 'loopback',
    forwardedUntrusted: true,
    headers: () => ({ 'X-Forwarded-For': '8.8.8.8' }),
  },
  {
    ...anonymous,
    label: 'identity header from a peer that is no trusted proxy',
    network: 'direct',
    account: true,
    client: 'loopback',
    headers: () => ({ 'X-Remote-User': 'alice' }),
  },
  // direct, before the first account exists
  {
    ...anonymous,
    label: 'no credentials, no account yet',
    network: 'direct',
    account: false,
    client: 'loopback',
  },
  {
    ...anonymous,
    label: 'unknown bearer token, no account yet',
    network: 'direct',
    account: false,
    client: 'loopback',
    credential: 'invalid',
    headers: () => ({ Authorization: 'Bearer rct_not-a-real-token' }),
  },
  {
    ...anonymous,
    label: 'untrusted proxy, no account yet',
    network: 'direct',
    account: false,
    client: 'loopback',
    forwardedUntrusted: true,
    headers: () => ({ 'X-Forwarded-For': '8.8.8.8' }),
  },
  // proxied: the loopback peer is a trusted proxy
  {
    ...anonymous,
    label: 'trusted proxy, public client 8.8.8.8',
    network: 'proxied',
    account: true,
    client: 'public',
    headers: () => ({ 'X-Forwarded-For': '8.8.8.8' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy, LAN client outside trusted_networks',
    network: 'proxied',
    account: true,
    client: 'private',
    headers: () => ({ 'X-Forwarded-For': '192.168.2.7' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy, client in trusted_networks',
    network: 'proxied',
    account: true,
    client: 'private',
    trustedNetwork: true,
    headers: () => ({ 'X-Forwarded-For': '192.168.1.50' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy, spoofed left-most hop in trusted_networks',
    network: 'proxied',
    account: true,
    client: 'public',
    headers: () => ({ 'X-Forwarded-For': '192.168.1.50, 8.8.8.8' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy without X-Forwarded-For (client = proxy)',
    network: 'proxied',
    account: true,
    client: 'loopback',
  },
  {
    ...anonymous,
    label: 'trusted proxy, identity header alice (allowed)',
    network: 'proxied',
    account: true,
    client: 'public',
    proxyIdentity: true,
    headers: () => ({ 'X-Forwarded-For': '8.8.8.8', 'X-Remote-User': 'alice' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy, identity header mallory (not in proxy_auth_allow)',
    network: 'proxied',
    account: true,
    client: 'public',
    headers: () => ({ 'X-Forwarded-For': '8.8.8.8', 'X-Remote-User': 'mallory' }),
  },
  {
    ...anonymous,
    label: 'trusted proxy, public client with a valid bearer token',
    network: 'proxied',
    account: true,
    client: 'public',
    credential: 'valid',
    headers: (owner) => ({ 'X-Forwarded-For': '8.8.8.8', Authorization: `Bearer ${owner.token}` }),
  },
  // trustedLoopback: 127.0.0.0/8 is a trusted network
  {
    ...anonymous,
    label: 'trusted network, no credentials',
    network: 'trustedLoopback',
    account: true,
    client: 'loopback',
    trustedNetwork: true,
  },
  {
    ...anonymous,
    label: 'trusted network, unknown bearer token',
    network: 'trustedLoopback',
    account: true,
    client: 'loopback',
    trustedNetwork: true,
    credential: 'invalid',
    headers: () => ({ Authorization: 'Bearer rct_not-a-real-token' }),
  },
];

interface Expected {
  status: number;
  code?: string;
  /** 302 target. */
  location?: string;
  /** /auth/status `authenticated`; /health trimmed exactly when auth is required and this is false. */
  signedIn: boolean;
}

/** Every row's peer is 127.0.0.1: loopback passes the untrusted-proxy rule of 5.8. */
const PEER_IS_LOOPBACK = true;

/** Spec 5.2-5.8 as a decision table. */
function expectation(mode: Mode, path: PathCase, s: Scenario): Expected {
  // 5.2: a bearer token or cookie anywhere; a query token only on paths ending in /stream.
  const credential = s.credential === 'valid' || (s.credential === 'query' && path.stream === true);
  // 5.3 and 5.8: trusted networks skip credentials; a trusted proxy's identity is an operator.
  const signedIn = mode === 'disabled' || credential || s.trustedNetwork || s.proxyIdentity;
  // 5.5: public paths; the setup surface only until the first account exists.
  const isPublic =
    path.access === 'public' ||
    path.access === 'setup' ||
    (path.access === 'public-until-setup' && !s.account);
  if (!signedIn && !isPublic) {
    // 5.4: an HTML GET is sent to /login; everything else gets 401.
    return path.html
      ? { status: 302, location: '/login', signedIn }
      : { status: 401, code: 'unauthorized', signedIn };
  }
  if (path.access === 'privileged') {
    const refusal = privilegedRefusal(mode, s, credential);
    if (refusal) return { ...refusal, signedIn };
  }
  if (path.access === 'setup' && setupRefused(s)) return { status: 403, code: 'setup_forbidden', signedIn };
  return { status: path.ok, code: path.okCode, signedIn };
}

/** 5.8: the privileged surface, once past the gate. */
function privilegedRefusal(
  mode: Mode,
  s: Scenario,
  credential: boolean,
): { status: number; code: string } | null {
  if (s.proxyIdentity || credential || s.trustedNetwork) return null;
  if (mode === 'required') return { status: 401, code: 'unauthorized' };
  // Auth disabled: behind an undeclared proxy only loopback (and trusted networks) pass ...
  if (s.forwardedUntrusted) return PEER_IS_LOOPBACK ? null : { status: 401, code: 'unauthorized' };
  // ... otherwise loopback and private clients pass, internet clients do not.
  return s.client === 'public' ? { status: 403, code: 'privileged_public_client' } : null;
}

/** Owner setup: where 5.8 lets an auth-disabled instance change itself, in both modes; no credential helps. */
function setupRefused(s: Scenario): boolean {
  if (s.proxyIdentity || s.trustedNetwork) return false;
  if (s.forwardedUntrusted) return !PEER_IS_LOOPBACK;
  return s.client === 'public';
}

interface Row {
  title: string;
  mode: Mode;
  path: PathCase;
  scenario: Scenario;
  expected: Expected;
}

const MODES: Mode[] = ['disabled', 'required'];
const ROWS: Row[] = MODES.flatMap((mode) =>
  SCENARIOS.flatMap((scenario) =>
    PATHS.map((path) => {
      const expected = expectation(mode, path, scenario);
      const outcome = `${expected.status}${expected.code ? ` ${expected.code}` : ''}`;
      return {
        title: `${mode} | ${scenario.label} | ${path.method} ${path.path} (${path.label}) -> ${outcome}`,
        mode,
        path,
        scenario,
        expected,
      };
    }),
  ),
);

interface Instance {
  booted: BootedService;
  owner: SeededOwner | null;
}

/** Secrets no store holds: what the rows before the first account would present. */
const NOT_STORED: SeededOwner = {
  username: 'nobody',
  password: 'not-a-password',
  session: newSecret('rcs'),
  expiredSession: newSecret('rcs'),
  token: newSecret('rct'),
};

const instances = new Map<string, Instance>();
/**
 * Setup and login share one limiter (10 a minute per client, spec 8): the setup rows get
 * instances of their own, so neither row set runs into the other's attempts.
 */
type Limiter = 'login' | 'setup';
const limiterOf = (path: PathCase): Limiter => (path.access === 'setup' ? 'setup' : 'login');
const keyOf = (mode: Mode, network: Network, account: boolean, limiter: Limiter) =>
  `${mode}/${network}/${account}/${limiter}`;

// A fake web build, so the pages answer the same whether or not `npm run build` made dist/web.
const WEB_DIR = fs.mkdtempSync(join(os.tmpdir(), 'raincheck-matrix-web-'));
const previousWebDir = process.env.RAINCHECK_WEB_DIR;

beforeAll(async () => {
  fs.mkdirSync(join(WEB_DIR, 'pkg'));
  fs.writeFileSync(join(WEB_DIR, 'index.html'), '<html><head><base href="./" /></head></html>');
  fs.writeFileSync(join(WEB_DIR, 'pkg', 'app.js'), 'export {};');
  process.env.RAINCHECK_WEB_DIR = WEB_DIR;
  const needed = new Set(
    MODES.flatMap((mode) =>
      SCENARIOS.flatMap((s) =>
        (['login', 'setup'] as const).map((l) => keyOf(mode, s.network, s.account, l)),
      ),
    ),
  );
  for (const key of needed) {
    const [mode, network, account] = key.split('/') as [Mode, Network, string, Limiter];
    const booted = await bootService({ configToml: configToml({ mode, ...NETWORKS[network] }) });
    const owner = account === 'true' ? await seedOwner(booted.service) : null;
    instances.set(key, { booted, owner });
  }
}, 60_000);

afterAll(async () => {
  for (const { booted } of instances.values()) {
    await booted.service.stop();
    fs.rmSync(booted.dataDir, { recursive: true, force: true });
  }
  if (previousWebDir === undefined) delete process.env.RAINCHECK_WEB_DIR;
  else process.env.RAINCHECK_WEB_DIR = previousWebDir;
  fs.rmSync(WEB_DIR, { recursive: true, force: true });
});

describe('auth access matrix (spec 5)', () => {
  it.each(ROWS)('$title', async ({ mode, path, scenario, expected }) => {
    const instance = instances.get(keyOf(mode, scenario.network, scenario.account, limiterOf(path)));
    if (!instance) throw new Error('instance not booted');
    const { booted, owner } = instance;
    const headers: Record<string, string> = {};
    if (path.html) headers.Accept = 'text/html,application/xhtml+xml';
    if (scenario.headers) Object.assign(headers, scenario.headers(owner ?? NOT_STORED));
    let url = path.path;
    if (scenario.credential === 'query') url += `?access_token=${(owner ?? NOT_STORED).token}`;

    const res = await send(booted.port, {
      method: path.method,
      path: url,
      headers,
      body: path.body,
      headersOnly: path.stream,
    });

    expect(res.status).toBe(expected.status);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    if (expected.status === 302) {
      expect(res.headers.location).toBe(expected.location);
      return;
    }
    if (path.stream) {
      if (expected.status === 200) expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      else expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+"$/);
      return;
    }
    const body = json(res) ?? {};
    if (expected.code) expect(body.code).toBe(expected.code);
    if (expected.status === 401) {
      expect(body.error).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+"$/);
    } else {
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
    if (path.label.startsWith('auth status')) {
      expect(body).toEqual({ mode, setup_complete: scenario.account, authenticated: expected.signedIn });
    }
    if (path.label === 'health') {
      // 5.5: anonymous callers of an auth-required instance get the trimmed body.
      const trimmed = mode === 'required' && !expected.signedIn;
      if (trimmed) expect(Object.keys(body).sort()).toEqual(['status', 'uptime_s', 'version']);
      else expect(body).toHaveProperty('subsystems');
    }
  });
});
