import request from 'supertest';
import { ManualClock } from '../../server/src/core/clock';
import { serviceTracker } from '../helpers/service';
import { localEpoch, until } from '../forecast/service/peers';

/**
 * The demo on a fresh install (DEMO=1): its synthetic weather has a showery
 * week and then a dry spell, so the engine both skips for rain and, once the
 * dry days prove a deficit, plans water. 2026-11-22 is day 11 of the demo's
 * 16-day cycle (storms on days 0, 3 and 6); 2026-11-19 is day 8.
 *
 * At its first start the demo backfills its weather record from its forecast
 * provider's past days (92 of them), so the soil ledger knows every zone's
 * state from the first morning: a zone is due on the first days when it is.
 */

const services = serviceTracker();
const noNetwork: typeof fetch = () =>
  Promise.reject(new TypeError('fetch failed: the demo needs no network'));

interface PlanZone {
  zone: string;
  reason_code: string;
  planned_seconds: number;
}

async function demoSnapshotAt(iso: string) {
  const clock = new ManualClock(localEpoch(iso) * 1000);
  const booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock, fetch: noNetwork } });
  // The first start backfills 92 days from the demo provider: wait for the ledger to hold them.
  await until(async () => {
    const res = await request(booted.service.server).get('/api/v1/irrigation/soil?zone=front_lawn&days=60');
    return res.status === 200 && res.body.rows.length === 60 ? true : null;
  });
  return until(async () => {
    const res = await request(booted.service.server).get('/api/v1/irrigation/snapshot');
    const plan = res.body?.water_plan as { date_local: string; zones: PlanZone[] }[] | undefined;
    const forecastReady = res.status === 200 && res.body.forecast_last_seen_epoch > 0;
    return forecastReady && plan ? res.body : null;
  });
}

describe('demo plans', () => {
  it('after the dry spell proves a deficit, the demo plans water tonight and says when', async () => {
    const snap = await demoSnapshotAt('2026-11-22T01:00:00');
    const today = snap.water_plan[0] as { date_local: string; zones: PlanZone[] };
    expect(today.date_local).toBe('2026-11-22');
    const front = today.zones.find((z) => z.zone === 'front_lawn');
    expect(front?.reason_code).toBe('water');
    expect(front?.planned_seconds).toBeGreaterThan(0);
    // Known, not guessed: the backfilled storms filled every root zone, so the state is a number.
    const budgets = snap.water_budgets as {
      zone: string;
      soil_depletion_mm: number | null;
      scheduling_model: string;
    }[];
    for (const b of budgets.filter((x) => x.scheduling_model === 'soil')) {
      expect({ zone: b.zone, known: b.soil_depletion_mm !== null }).toEqual({ zone: b.zone, known: true });
    }
    expect(snap.next_run_state).toBe('at');
    expect(snap.next_run_day_offset).toBe(0);
  });

  it('early in the dry spell nothing is due yet, and the plan ahead shows the water to come', async () => {
    const snap = await demoSnapshotAt('2026-11-19T01:00:00');
    const days = snap.water_plan as { date_local: string; zones: PlanZone[] }[];
    expect(days[0]?.zones.every((z) => z.planned_seconds === 0)).toBe(true);
    const ahead = days.slice(1).filter((d) => d.zones.some((z) => z.planned_seconds > 0));
    expect(ahead.length).toBeGreaterThan(0);
    expect(snap.next_run_state).toBe('at');
    expect(snap.next_run_day_offset).toBeGreaterThan(0);
  });
});
