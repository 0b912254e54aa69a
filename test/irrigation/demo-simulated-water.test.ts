import request from 'supertest';
import { ManualClock } from '../../server/src/core/clock';
import { serviceTracker } from '../helpers/service';
import { localEpoch, until } from '../forecast/service/peers';

/**
 * The live demo (DEMO=1, its dry-run controller) on a fake clock, through the
 * HTTP API: a run of the demo's pretend controller is recorded as `simulated`
 * water (source `dry_run:manual`, no applied amounts: no real yard got it),
 * and the demo's own yard takes it: the engine's applied water and the zone's
 * depletion follow it, so the demo is watered, not only scheduled.
 * 2026-11-26 is in the demo's dry spell, when `front_lawn` is past its trigger.
 */

const services = serviceTracker();
const noNetwork: typeof fetch = () =>
  Promise.reject(new TypeError('fetch failed: the demo needs no network'));

interface Budget {
  zone: string;
  applied_mm: number;
  soil_depletion_mm: number | null;
}

it("a run of the demo's pretend controller is simulated water that waters the demo's yard", async () => {
  const clock = new ManualClock(localEpoch('2026-11-26T13:00:00') * 1000);
  const booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock, fetch: noNetwork } });
  const api = () => request(booted.service.server);
  await until(async () => {
    const res = await api().get('/api/v1/irrigation/soil?zone=front_lawn&days=60');
    return res.status === 200 && res.body.rows.length === 60 ? true : null;
  });
  const front = async () => {
    const snap = await api().get('/api/v1/irrigation/snapshot').expect(200);
    return (snap.body.water_budgets as Budget[]).find((b) => b.zone === 'front_lawn') as Budget;
  };
  const before = await front();
  expect(before.soil_depletion_mm).toEqual(expect.any(Number));

  await api()
    .post('/api/v1/irrigation/action')
    .send({ kind: 'run', zone: 'front_lawn', seconds: 1800 })
    .expect(200);
  clock.advance(1801 * 1000);
  const row = await until(async () => {
    const res = await api().get('/api/v1/irrigation/history?days=1');
    const runs = (res.body.runs ?? []) as { zone: string; source: string; status: string }[];
    return runs.find(
      (r) => r.zone === 'front_lawn' && r.source === 'dry_run:manual' && r.status === 'completed',
    );
  });
  expect(row).toMatchObject({ duration_s: 1800, evidence: 'simulated', applied_mm: null, volume_gal: null });

  const after = await until(async () => {
    const b = await front();
    return b.applied_mm > before.applied_mm ? b : null;
  });
  expect(after.soil_depletion_mm).toEqual(expect.any(Number));
  expect(after.soil_depletion_mm as number).toBeLessThan(before.soil_depletion_mm as number);
});
