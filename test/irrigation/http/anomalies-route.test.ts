import request from 'supertest';
import type { AnomalyEvent } from '../../../server/src/core/bus';
import { ManualClock } from '../../../server/src/core/clock';
import { toToml } from '../../../server/src/config/toml';
import type { Store } from '../../../server/src/store/store';
import { minimalConfig, serviceTracker } from '../../helpers/service';
import { localEpoch, TZ } from '../tuning/recorded-history';

/**
 * GET /irrigation/anomalies over the real service: evidence from its own
 * database (a source's stored readings, failed dispatches in the ledger),
 * the spec body, the hour's cache, and `anomaly.new` on the bus.
 */

const services = serviceTracker();
const NOW_MS = localEpoch('2025-07-20', 14) * 1000;

it('reports what the stored evidence shows, caches it, and announces each anomaly once', async () => {
  const clock = new ManualClock(NOW_MS);
  const config = minimalConfig({
    deployment: { location: { lat: 40.7, lon: -74.0 }, units: 'imperial', timezone: TZ },
  });
  const { service } = await services.boot({ configToml: toToml(config as never), serviceOptions: { clock } });
  const heard: AnomalyEvent[] = [];
  service.bus.on('anomaly.new', (a) => heard.push(a));
  const store = service.store as Store;
  const now = NOW_MS / 1000;
  store.readings.insertMany([{ epoch: now - 300, source_id: 'backyard', field: 'air_temp_f', value: 190 }]);
  for (const hours of [30, 20, 10]) {
    store.runs.insert({
      session_id: null,
      zone: 'front',
      start_epoch: now - hours * 3600,
      duration_s: 0,
      skip_reason: 'dispatch_failed: connect ECONNREFUSED',
      source: 'ha_refresher',
      status: 'skipped',
      controller_id: 'os1',
      applied_mm: null,
      volume_gal: null,
      note: 'connect ECONNREFUSED',
      cycle_index: null,
      cycle_count: null,
    });
  }
  const res = await request(service.server).get('/api/v1/irrigation/anomalies').expect(200);
  expect(res.body.generated_epoch).toBe(now);
  const types = res.body.anomalies.map((a: { type: string }) => a.type).sort();
  expect(types).toEqual(['controller_errors_repeating', 'source_out_of_range']);
  for (const a of res.body.anomalies) {
    expect(Object.keys(a)).toEqual(expect.arrayContaining(['severity', 'type', 'description']));
  }
  expect(heard.map((a) => a.type).sort()).toEqual(types);

  // Cached: new evidence does not show within the hour, and nothing is announced twice.
  store.readings.insertMany([{ epoch: now - 200, source_id: 'backyard', field: 'rh_pct', value: 150 }]);
  clock.advance(60_000);
  const again = await request(service.server).get('/api/irrigation/anomalies').expect(200);
  expect(again.body.generated_epoch).toBe(now);
  expect(heard).toHaveLength(2);
});
