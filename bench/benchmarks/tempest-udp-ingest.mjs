import { createSocket } from 'node:dgram';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HOST, percentile, REPO_ROOT, sleep } from '../lib/harness.mjs';

/**
 * In-process: the compiled WeatherService with one tempest_udp source on a
 * loopback port, fed by a dgram client in the same process. The source's sink
 * is wrapped so every publish is followed by `service.snapshot()`; the time
 * from just before `send()` to that snapshot returning (and showing the
 * datagram's value) is the latency.
 *
 * Each datagram carries a unique value: obs_st an air temperature of seq/1000
 * degC, rapid_wind a speed of seq/1000 m/s. The expected snapshot value is
 * computed with the service's own converters, so the published reading is
 * found by exact value. Epochs are the current wall-clock second: readings
 * stay live and in order (distinct epochs per datagram would have to run hours
 * ahead of the clock at this rate, and far-future readings are not live).
 */

const RATE = 2000;
const DURATION_S = 10;
const WARMUP_S = 1;
const BURST_MS = 10;
const PER_BURST = (RATE * BURST_MS) / 1000;
/** Every RAPID_EVERY-th datagram is rapid_wind, the rest obs_st. */
const RAPID_EVERY = 5;
const DRAIN_TIMEOUT_MS = 2000;
const STATION = 'ST-00000512';
const HUB = 'HB-00013030';

const requireDist = createRequire(join(REPO_ROOT, 'dist/server/src/main.js'));

function loadDist() {
  try {
    return {
      WeatherService: requireDist('./weather/weather-service.js').WeatherService,
      tempestUdpKind: requireDist('./weather/sources/tempest/tempest-udp.js').tempestUdpKind,
      EventBus: requireDist('./core/bus.js').EventBus,
      systemClock: requireDist('./core/clock.js').systemClock,
      silentLogger: requireDist('./core/logger.js').silentLogger,
      configSchema: requireDist('./config/schema.js').configSchema,
      convert: requireDist('./weather/fields.js').convert,
    };
  } catch (err) {
    throw new Error(`cannot load the compiled service (run \`npm run build\` first): ${err.message}`, {
      cause: err,
    });
  }
}

function obsSt(epoch, airTempC) {
  return JSON.stringify({
    serial_number: STATION,
    type: 'obs_st',
    hub_sn: HUB,
    obs: [[epoch, 0.18, 0.22, 0.27, 144, 6, 1017.57, airTempC, 50.26, 328, 0.03, 3, 0, 0, 0, 0, 2.41, 1]],
    firmware_revision: 129,
  });
}

function rapidWind(epoch, speedMs) {
  return JSON.stringify({
    serial_number: STATION,
    type: 'rapid_wind',
    hub_sn: HUB,
    ob: [epoch, speedMs, 128],
  });
}

const fmt = (v) => `${v.toFixed(3)} ms`;

export default {
  name: 'tempest-udp-ingest',
  title:
    `Tempest UDP ingest in-process, ${RATE} datagrams/s for ${DURATION_S} s ` +
    `(+${WARMUP_S} s warm-up; obs_st + 1 in ${RAPID_EVERY} rapid_wind): datagram to updated snapshot, zero parse loss`,
  budget: {
    metric: 'p99 datagram to updated snapshot (any loss fails)',
    better: 'lower',
    limit: 5,
    unit: 'ms',
  },

  async run(report) {
    const dist = loadDist();
    const doc = {
      schema_version: 2,
      deployment: {
        location: { lat: 28.5383, lon: -81.3792, elevation_m: 30 },
        timezone: 'America/New_York',
      },
      // Port 0: the source binds a free port and reports it through address().
      sources: [{ id: 'tempest', kind: 'tempest_udp', config: { bind_addr: `${HOST}:0` } }],
    };
    const applied = {
      config: dist.configSchema.parse(doc),
      document: doc,
      appliedAtEpoch: Math.floor(Date.now() / 1000),
      revision: 1,
    };

    /** Expected snapshot value -> { sentAt, measured, kind }; removed once seen. */
    const pending = { air_temp_f: new Map(), rapid_wind_mph: new Map() };
    const latencies = { obs_st: [], rapid_wind: [] };
    let published = 0;
    let unmatched = 0;
    let stale = 0;
    let service = null;

    const onPublished = (batch, snapshot, at) => {
      published++;
      for (const reading of batch.readings ?? []) {
        const waiting = pending[reading.field];
        const entry = waiting?.get(reading.value);
        if (!entry) continue;
        waiting.delete(reading.value);
        if (snapshot[reading.field] !== reading.value) stale++;
        if (entry.measured) latencies[entry.kind].push(at - entry.sentAt);
        return;
      }
      unmatched++;
    };

    const kind = {
      ...dist.tempestUdpKind,
      create: (ctx) =>
        dist.tempestUdpKind.create({
          ...ctx,
          sink: {
            contact: (ok, note) => ctx.sink.contact(ok, note),
            publish: (batch) => {
              ctx.sink.publish(batch);
              const snapshot = service.snapshot();
              onPublished(batch, snapshot, performance.now());
            },
          },
        }),
    };
    service = new dist.WeatherService({
      bus: new dist.EventBus(),
      clock: dist.systemClock,
      logger: dist.silentLogger(),
      config: () => applied,
      store: null,
      kinds: new Map([[kind.kind, kind]]),
      modelledKinds: new Set(),
      demo: false,
    });

    const client = createSocket('udp4');
    try {
      await service.start();
      const [{ source }] = service.sourcesOfKind('tempest_udp');
      const address = source.address();
      if (!address) throw new Error('the tempest_udp source did not bind');
      await new Promise((resolve, reject) => {
        client.once('error', reject);
        client.connect(address.port, HOST, resolve);
      });
      report('source', `tempest_udp bound to ${address.host}:${address.port}`);
      // In-process: the bench's own V8 flags apply, not bin/raincheck's (--optimize-for-size
      // --max-semi-space-size=1, more frequent scavenges); run node with those flags to match.
      report('node flags', process.execArgv.length > 0 ? process.execArgv.join(' ') : '(none)');

      let seq = 0;
      let sent = 0;
      const sendBurst = (measured) => {
        const epoch = Math.floor(Date.now() / 1000);
        const burst = [];
        for (let i = 0; i < PER_BURST; i++) {
          seq++;
          const value = seq / 1000;
          if (seq % RAPID_EVERY === 0) {
            const key = dist.convert.msToMph(value);
            burst.push({
              buf: Buffer.from(rapidWind(epoch, value)),
              map: pending.rapid_wind_mph,
              key,
              kind: 'rapid_wind',
            });
          } else {
            const key = dist.convert.cToF(value);
            burst.push({
              buf: Buffer.from(obsSt(epoch, value)),
              map: pending.air_temp_f,
              key,
              kind: 'obs_st',
            });
          }
        }
        // Built first, so the stamps cover the send and what follows, not the JSON building.
        for (const d of burst) {
          d.map.set(d.key, { sentAt: performance.now(), measured, kind: d.kind });
          client.send(d.buf);
          sent++;
        }
      };

      const runFor = async (seconds, measured) => {
        const bursts = (seconds * 1000) / BURST_MS;
        const start = performance.now();
        for (let k = 0; k < bursts; k++) {
          const wait = start + k * BURST_MS - performance.now();
          // Behind schedule: still yield once, so the receives of the last burst run first.
          if (wait > 1) await sleep(wait);
          else await new Promise((resolve) => setImmediate(resolve));
          sendBurst(measured);
        }
        return (performance.now() - start) / 1000;
      };

      const warmupS = await runFor(WARMUP_S, false);
      const sentBefore = sent;
      const elapsedS = await runFor(DURATION_S, true);
      const measuredSent = sent - sentBefore;

      const drainUntil = performance.now() + DRAIN_TIMEOUT_MS;
      const handled = () => {
        const s = source.stats();
        return s.accepted + s.rejected + s.filtered;
      };
      while (handled() < sent && performance.now() < drainUntil) await sleep(10);
      const stats = source.stats();
      const loss = sent - stats.accepted;

      report('warm-up', `${sentBefore} datagrams in ${warmupS.toFixed(2)} s (latency not counted)`);
      report(
        'sent',
        `${measuredSent} datagrams in ${elapsedS.toFixed(2)} s measured (${(measuredSent / elapsedS).toFixed(0)}/s), ${sent} in all`,
      );
      report(
        'source stats',
        `accepted ${stats.accepted}, rejected ${stats.rejected}, filtered ${stats.filtered}; publishes ${published}`,
      );
      report('parse loss', `${loss} (sent - accepted)`);
      if (unmatched > 0 || stale > 0) {
        report(
          'check',
          `${unmatched} publishes matched no datagram, ${stale} snapshots lacked the datagram's value`,
        );
      }

      const all = [...latencies.obs_st, ...latencies.rapid_wind];
      if (all.length === 0) throw new Error('no datagram reached the snapshot');
      for (const [name, list] of Object.entries({ ...latencies, all })) {
        if (list.length === 0) continue;
        report(
          `latency ${name}`.padEnd(18),
          `n ${list.length}, p50 ${fmt(percentile(list, 50))}, p99 ${fmt(percentile(list, 99))}, ` +
            `max ${fmt(Math.max(...list))}`,
        );
      }
      const over = all.filter((v) => v >= 5).length;
      report('over 5 ms', `${over} of ${all.length} (${((over / all.length) * 100).toFixed(2)} %)`);

      const p99 = percentile(all, 99);
      const bad = loss + unmatched + stale;
      return {
        value: bad > 0 ? Infinity : p99,
        display:
          `p99 ${fmt(p99)}, loss ${loss}` +
          (unmatched + stale > 0 ? `, ${unmatched} unmatched, ${stale} stale snapshots` : ''),
      };
    } finally {
      client.close();
      await service.stop();
    }
  },
};
