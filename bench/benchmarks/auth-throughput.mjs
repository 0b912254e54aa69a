import autocannon from 'autocannon';
import {
  makeTempDir,
  mean,
  removeTempDir,
  spawnServiceWithConfig,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

/**
 * The cost of a bearer token on every request: GET /api/v1/info with a valid
 * API token against the same request without one, on an auth-required
 * instance, alternating sides. Token look-ups are cached by hash; the budget
 * holds that cache to its promise.
 */

const PATH = '/api/v1/info';
const CONNECTIONS = 50;
const WARMUP_S = 2;
const DURATION_S = 8;
const ORDER = ['anonymous', 'bearer', 'anonymous', 'bearer'];

const CONFIG = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74.0 } },
  auth: { mode: 'required' },
};

async function post(baseUrl, path, body, headers = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** Owner account, a session, then an API token made with it. */
async function apiToken(baseUrl) {
  const setup = await post(baseUrl, '/api/v1/auth/setup', {
    username: 'owner',
    password: 'bench-password-4821',
  });
  const cookie = (setup.headers.get('set-cookie') ?? '').split(';')[0];
  const created = await post(baseUrl, '/api/v1/auth/tokens', { name: 'bench' }, { cookie });
  return (await created.json()).token;
}

function cannon(url, duration, headers) {
  return autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration, headers });
}

function checkClean(side, result) {
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0)
    throw new Error(
      `${side}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    );
}

export default {
  name: 'auth-throughput',
  title: `GET ${PATH} with a bearer API token vs without, auth required, ${CONNECTIONS} connections`,
  budget: { metric: 'bearer/anonymous req/s ratio', better: 'higher', limit: 0.8, unit: '' },

  async run(report) {
    const dir = makeTempDir();
    let service = null;
    try {
      service = await spawnServiceWithConfig(dir, CONFIG);
      await waitFor200(service, '/api/v1/health');
      const token = await apiToken(service.baseUrl);
      const headers = { anonymous: {}, bearer: { authorization: `Bearer ${token}` } };
      const protectedCheck = await fetch(`${service.baseUrl}/api/v1/snapshot`, { headers: headers.bearer });
      if (protectedCheck.status !== 200)
        throw new Error(`the token does not open /snapshot (${protectedCheck.status})`);
      const rps = { anonymous: [], bearer: [] };
      for (const [i, side] of ORDER.entries()) {
        const url = `${service.baseUrl}${PATH}`;
        checkClean(`${side} warm-up`, await cannon(url, WARMUP_S, headers[side]));
        const result = await cannon(url, DURATION_S, headers[side]);
        checkClean(side, result);
        rps[side].push(result.requests.average);
        report(`round ${i + 1} ${side.padEnd(9)}`, `${result.requests.average.toFixed(0)} req/s`);
      }
      const ratio = mean(rps.bearer) / mean(rps.anonymous);
      report('ratio bearer/anonymous', ratio.toFixed(3));
      return { value: ratio, display: `ratio ${ratio.toFixed(3)}` };
    } finally {
      if (service) await stopChild(service);
      removeTempDir(dir);
    }
  },
};
