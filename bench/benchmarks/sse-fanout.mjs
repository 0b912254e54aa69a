import { createSocket } from 'node:dgram';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  freeUdpPort,
  HOST,
  httpGet,
  makeTempDir,
  median,
  percentile,
  removeTempDir,
  sleep,
  spawnServiceWithConfig,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

/**
 * The service as installed (launcher, a config.toml with one tempest_udp
 * source, no DEMO) with SUBSCRIBERS SSE clients on /api/v1/stream in the bench
 * process. Each mutation is one obs_st datagram with a new air temperature;
 * its latency is from just before the datagram is sent to the moment the last
 * client's socket delivered a `snapshot` event carrying that temperature.
 * Mutations are 1 s apart, well past the service's 250 ms event coalescing, so
 * every mutation is emitted at once.
 */

const SUBSCRIBERS = 500;
const MUTATIONS = 20;
const SPACING_MS = 1000;
const CONNECT_BATCH = 50;
const STREAM = '/api/v1/stream';
const STATION = 'ST-00000512';
const HUB = 'HB-00013030';

function obsSt(epoch, airTempC) {
  return Buffer.from(
    JSON.stringify({
      serial_number: STATION,
      type: 'obs_st',
      hub_sn: HUB,
      obs: [[epoch, 0.18, 0.22, 0.27, 144, 6, 1017.57, airTempC, 50.26, 328, 0.03, 3, 0, 0, 0, 0, 2.41, 1]],
      firmware_revision: 129,
    }),
  );
}

/** As the service converts (weather/fields.ts convert.cToF); the snapshot passes the value through. */
const cToF = (c) => (c * 9) / 5 + 32;
const sameTemp = (a, b) => a !== null && Math.abs(a - b) < 1e-9;
const AIR_TEMP = /"air_temp_f":(null|-?[0-9.eE+-]+)/;

/**
 * One SSE subscriber. `onSnapshot(airTempF, at)` runs for each `snapshot`
 * event, `at` being when the chunk that completed it arrived. Only the
 * temperature is extracted (a regex, not JSON.parse) so 500 clients cost the
 * bench little per event.
 */
function subscribe(agent, port, onSnapshot, localAddress) {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path: STREAM, method: 'GET', agent, localAddress }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${STREAM} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        const at = performance.now();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!frame.startsWith('event: snapshot\n')) continue;
          const m = AIR_TEMP.exec(frame);
          onSnapshot(m && m[1] !== 'null' ? Number(m[1]) : null, at);
        }
      });
      res.on('error', () => {});
      resolve(req);
    });
    req.on('error', reject);
    req.end();
  });
}

const fmt = (v) => `${v.toFixed(1)} ms`;

/**
 * Subscribers come from PER_ADDRESS-sized groups of loopback addresses
 * (127.0.0.2, 127.0.0.3, ...), as clients on many hosts would: the service
 * caps connections per client address (http/limits.ts).
 */
const PER_ADDRESS = 50;
const sourceAddress = (client) => `127.0.0.${2 + Math.floor(client / PER_ADDRESS)}`;

export default {
  name: 'sse-fanout',
  title: `SSE fan-out to ${SUBSCRIBERS} subscribers of ${STREAM}, ${MUTATIONS} mutations (Tempest UDP obs_st) ${SPACING_MS / 1000} s apart: mutation to last client`,
  budget: { metric: 'p99 mutation to last client', better: 'lower', limit: 100, unit: 'ms' },

  async run(report) {
    const dir = makeTempDir();
    const udpPort = await freeUdpPort();
    const doc = {
      schema_version: 2,
      deployment: {
        location: { lat: 28.5383, lon: -81.3792, elevation_m: 30 },
        timezone: 'America/New_York',
      },
      sources: [
        { id: 'tempest', priority: 100, kind: 'tempest_udp', config: { bind_addr: `${HOST}:${udpPort}` } },
      ],
    };
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const requests = [];
    const udp = createSocket('udp4');
    let service = null;
    try {
      service = await spawnServiceWithConfig(dir, doc);
      await waitFor200(service, '/api/v1/health');
      await new Promise((resolve, reject) => {
        udp.once('error', reject);
        udp.connect(udpPort, HOST, resolve);
      });

      // Per client: the latest temperature seen and when each expected one first arrived.
      let expected = null; // { index, tempF, sentAt }
      const arrivals = Array.from({ length: MUTATIONS }, () => new Array(SUBSCRIBERS).fill(null));
      const initial = new Array(SUBSCRIBERS).fill(false);
      const onSnapshot = (client) => (tempF, at) => {
        initial[client] = true;
        const e = expected;
        if (e && sameTemp(tempF, e.tempF) && arrivals[e.index][client] === null) {
          arrivals[e.index][client] = at;
        }
      };

      // A first reading, so the stream carries a station snapshot before the clients attach.
      const seedC = 15;
      udp.send(obsSt(Math.floor(Date.now() / 1000), seedC));
      const seedDeadline = performance.now() + 5000;
      for (;;) {
        const snap = JSON.parse((await httpGet(service.port, '/api/v1/snapshot')).body.toString('utf8'));
        if (sameTemp(snap.air_temp_f, cToF(seedC))) break;
        if (performance.now() > seedDeadline) throw new Error('the seed datagram never reached the snapshot');
        await sleep(20);
      }

      const connectStart = performance.now();
      for (let i = 0; i < SUBSCRIBERS; i += CONNECT_BATCH) {
        const batch = [];
        for (let c = i; c < Math.min(SUBSCRIBERS, i + CONNECT_BATCH); c++) {
          batch.push(subscribe(agent, service.port, onSnapshot(c), sourceAddress(c)));
        }
        requests.push(...(await Promise.all(batch)));
      }
      const attachDeadline = performance.now() + 10_000;
      while (initial.some((got) => !got)) {
        if (performance.now() > attachDeadline) {
          throw new Error(`${initial.filter((g) => !g).length} clients got no initial snapshot`);
        }
        await sleep(10);
      }
      report(
        'subscribers',
        `${SUBSCRIBERS} connected, initial snapshot on all in ${fmt(performance.now() - connectStart)}`,
      );
      await sleep(SPACING_MS); // past the coalescing window of the seed and any tick

      const last = [];
      const first = [];
      let missed = 0;
      const start = performance.now();
      for (let m = 0; m < MUTATIONS; m++) {
        const wait = start + m * SPACING_MS - performance.now();
        if (wait > 0) await sleep(wait);
        const tempC = 20 + m * 0.25;
        const buf = obsSt(Math.floor(Date.now() / 1000), tempC);
        expected = { index: m, tempF: cToF(tempC), sentAt: performance.now() };
        udp.send(buf);
        // Wait for every client, up to just before the next mutation.
        const deadline = start + (m + 1) * SPACING_MS - 50;
        while (arrivals[m].some((a) => a === null) && performance.now() < deadline) await sleep(5);
        const got = arrivals[m].filter((a) => a !== null);
        const lost = SUBSCRIBERS - got.length;
        missed += lost;
        if (lost === 0) last.push(Math.max(...got) - expected.sentAt);
        if (got.length > 0) first.push(Math.min(...got) - expected.sentAt);
        const lastText = lost === 0 ? fmt(Math.max(...got) - expected.sentAt) : `${lost} clients missing`;
        report(
          `mutation ${String(m + 1).padStart(2)}`,
          `${cToF(tempC).toFixed(2)} F, last client ${lastText}`,
        );
      }
      expected = null;

      const complete = arrivals[0].map((_, c) => arrivals.every((row) => row[c] !== null)).filter(Boolean);
      report('clients with every mutation', `${complete.length} of ${SUBSCRIBERS}`);
      if (first.length > 0) report('first client', `median ${fmt(median(first))}`);
      if (last.length === 0) throw new Error('no mutation reached every client');
      const p99 = percentile(last, 99);
      report(
        'last client',
        `p50 ${fmt(percentile(last, 50))}, p99 ${fmt(p99)}, max ${fmt(Math.max(...last))} ` +
          `(${last.length} of ${MUTATIONS} mutations reached all)`,
      );
      return {
        value: missed > 0 ? Infinity : p99,
        display: `p99 ${fmt(p99)}` + (missed > 0 ? `, ${missed} deliveries missing` : ''),
      };
    } finally {
      for (const req of requests) req.destroy();
      agent.destroy();
      udp.close();
      if (service) await stopChild(service);
      removeTempDir(dir);
    }
  },
};
