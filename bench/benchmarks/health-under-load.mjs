import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  HOST,
  makeTempDir,
  ms,
  percentile,
  removeTempDir,
  sleep,
  spawnService,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

/**
 * /health while the service is under the load of issue 16: SLOW_BODIES
 * clients each send a POST head announcing a 1 MB body and then trickle a
 * byte a second (and reconnect a second after being refused, as an attacker
 * does), and IDLE_STREAMS SSE clients sit on /api/v1/stream. Clients are
 * spread over loopback addresses (127.0.x.y), as many hosts would be, so the
 * per-client caps do not simply refuse one address. /health is then asked
 * PROBES times, each on a new connection as a watchdog asks; its p99 latency
 * is held to the budget. The demo service is started through bin/raincheck
 * as installed; it needs about 3,500 file descriptors (node raises its soft
 * limit to the hard one: `ulimit -Hn` must allow that, and the bench process
 * holds as many client sockets).
 */

const SLOW_BODIES = 1000;
const IDLE_STREAMS = 2000;
const PROBES = 400;
const PER_ADDRESS = 25;
const RETRY_MS = 1000;
const TRICKLE_MS = 1000;
const SETTLE_MS = 3000;

/** The n-th client's source address: 127.<block>.x.y, PER_ADDRESS clients each. */
function sourceAddress(block, n) {
  const index = Math.floor(n / PER_ADDRESS) + 2;
  return `127.${block}.${Math.floor(index / 250)}.${(index % 250) + 2}`;
}

function openFileLimit(pid) {
  const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return line ? `${line[1]} soft, ${line[2]} hard` : 'unknown';
}

/** One slow-body attacker: holds a body open as long as it is let, reconnects when refused. */
function slowBodyClient(port, localAddress, tally) {
  let stopped = false;
  let socket = null;
  let trickle = null;
  const open = () => {
    if (stopped) return;
    let answered = false;
    socket = connect({ host: HOST, port, localAddress });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      tally.connects += 1;
      socket.write(
        'POST /api/v1/config/preview HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000000\r\n\r\n{"candidate":',
      );
      trickle = setInterval(() => socket.write(' '), TRICKLE_MS);
    });
    socket.on('data', (chunk) => {
      if (answered) return;
      answered = true;
      const status = chunk.toString('latin1').slice(9, 12);
      tally.answers[status] = (tally.answers[status] ?? 0) + 1;
    });
    socket.once('close', () => {
      clearInterval(trickle);
      if (!answered) tally.dropped += 1;
      setTimeout(open, RETRY_MS);
    });
  };
  open();
  return () => {
    stopped = true;
    clearInterval(trickle);
    socket?.destroy();
  };
}

/** One idle SSE subscriber; resolves with its status once the head arrived. */
function idleStream(port, localAddress, held) {
  return new Promise((resolve) => {
    const req = request({ host: HOST, port, path: '/api/v1/stream', agent: false, localAddress }, (res) => {
      res.on('data', () => undefined);
      res.on('error', () => undefined);
      held.push(req);
      resolve(res.statusCode);
    });
    req.on('error', () => resolve('error'));
    req.end();
  });
}

function timedGet(port, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: HOST, port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.setTimeout(5000, () => req.destroy(new Error(`${path} did not answer in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

async function probe(port, path, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const { status, ms: took } = await timedGet(port, path);
    if (status !== 200) throw new Error(`${path} answered ${status} under load`);
    times.push(took);
  }
  return times;
}

export default {
  name: 'health-under-load',
  title: `GET /health on new connections while ${SLOW_BODIES} slow bodies and ${IDLE_STREAMS} idle SSE clients are connected`,
  budget: { metric: 'p99 /health latency', better: 'lower', limit: 50, unit: 'ms' },

  async run(report) {
    const dir = makeTempDir();
    const stops = [];
    const held = [];
    let service = null;
    try {
      service = await spawnService(dir, { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' });
      await waitFor200(service, '/api/v1/health');
      report('service descriptors', openFileLimit(service.pid));
      report('bench descriptors', openFileLimit(process.pid));
      const quiet = await probe(service.port, '/api/v1/health', 100);
      report('/health idle', `p50 ${ms(percentile(quiet, 50))}, p99 ${ms(percentile(quiet, 99))}`);

      const statuses = {};
      for (let i = 0; i < IDLE_STREAMS; i += 100) {
        const batch = [];
        for (let n = i; n < Math.min(IDLE_STREAMS, i + 100); n++) {
          batch.push(idleStream(service.port, sourceAddress(1, n), held));
        }
        for (const status of await Promise.all(batch)) statuses[status] = (statuses[status] ?? 0) + 1;
      }
      report('idle streams', `${IDLE_STREAMS} opened: ${JSON.stringify(statuses)} (status: count)`);

      const tally = { connects: 0, answers: {}, dropped: 0 };
      for (let n = 0; n < SLOW_BODIES; n++)
        stops.push(slowBodyClient(service.port, sourceAddress(2, n), tally));
      await sleep(SETTLE_MS);
      const health = await probe(service.port, '/api/v1/health', PROBES);
      const snapshot = await probe(service.port, '/api/v1/irrigation/snapshot', 50);
      report(
        'slow bodies',
        `${SLOW_BODIES} clients, ${tally.connects} connections in ${((SETTLE_MS + health.reduce((a, b) => a + b, 0)) / 1000).toFixed(1)} s: ` +
          `answers ${JSON.stringify(tally.answers)}, closed unanswered ${tally.dropped}, the rest held open`,
      );
      report(
        '/irrigation/snapshot under load',
        `p50 ${ms(percentile(snapshot, 50))}, p99 ${ms(percentile(snapshot, 99))}`,
      );
      const p99 = percentile(health, 99);
      report(
        '/health under load',
        `p50 ${ms(percentile(health, 50))}, p99 ${ms(p99)}, max ${ms(Math.max(...health))} (${PROBES} probes)`,
      );
      return { value: p99, display: `p99 ${ms(p99)}` };
    } finally {
      for (const stop of stops) stop();
      for (const req of held) req.destroy();
      if (service) await stopChild(service);
      removeTempDir(dir);
    }
  },
};
