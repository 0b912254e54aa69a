import request from 'supertest';
import { localCalendar } from '../../../server/src/irrigation/skip/local-days';
import { quietDemoClock, serviceTracker, type BootedService } from '../../helpers/service';

/**
 * GET /irrigation/soil and the declare_soil_state action over the real
 * service in demo mode: the start-up backfill (92 demo days from the
 * forecast provider) gives the ledger its past; the rows, today's decision
 * and an owner's declaration, with the spec codes for bad input.
 */

const services = serviceTracker();
const TZ = 'America/New_York';

async function soilRows(booted: BootedService, days = 30): Promise<request.Response> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await request(booted.service.server).get(
      `/api/v1/irrigation/soil?zone=front_lawn&days=${days}`,
    );
    if (res.status !== 200 || res.body.rows.length >= days || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function boot(): Promise<BootedService> {
  return services.boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
}

describe('GET /irrigation/soil', () => {
  it('answers the last N closed days of the ledger, and today as the engine decided it', async () => {
    const booted = await boot();
    const res = await soilRows(booted);
    expect(res.status).toBe(200);
    const cal = localCalendar(TZ, Math.floor(quietDemoClock().nowMs() / 1000));
    expect(res.body).toMatchObject({
      zone: 'front_lawn',
      timezone: TZ,
      days: 30,
      from_date: cal.addDays(cal.today, -30),
      to_date: cal.addDays(cal.today, -1),
    });
    const rows = res.body.rows as Record<string, unknown>[];
    expect(rows).toHaveLength(30);
    expect(rows.map((r) => r['date_local'])).toEqual(
      Array.from({ length: 30 }, (_, i) => cal.addDays(cal.today, i - 30)),
    );
    for (const r of rows) {
      expect(r).toMatchObject({
        zone: 'front_lawn',
        rain_source: 'model_archive',
        irrigation_evidence: 'none',
      });
      expect(typeof r['et0_mm']).toBe('number');
      expect((r['depletion_mm'] === null) !== (r['depletion_range_mm'] === null)).toBe(true);
    }
    // The day's decision starts where the ledger's last closed day ended.
    const snapshot = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    const plan = snapshot.body.water_plan[0].zones.find((z: { zone: string }) => z.zone === 'front_lawn');
    expect(res.body.today).toMatchObject({
      reason_code: plan.reason_code,
      planned_seconds: plan.planned_seconds,
    });
    const last = rows.at(-1) as { depletion_mm: number | null; depletion_range_mm: [number, number] | null };
    if (last.depletion_mm !== null) expect(plan.depletion_mm).toBeCloseTo(last.depletion_mm, 2);
    else
      expect(plan.depletion_range_mm).toEqual(last.depletion_range_mm?.map((x) => Math.round(x * 100) / 100));
  });

  it('refuses a missing or unknown zone with zone_unknown, a bad days with invalid_query; clamps days to 400', async () => {
    const booted = await boot();
    const server = booted.service.server;
    const missing = await request(server).get('/api/v1/irrigation/soil').expect(400);
    expect(missing.body).toMatchObject({ code: 'zone_unknown' });
    expect(missing.body.mapped_zones).toContain('front_lawn');
    await request(server).get('/api/v1/irrigation/soil?zone=nope').expect(400);
    const bad = await request(server).get('/api/v1/irrigation/soil?zone=front_lawn&days=abc').expect(400);
    expect(bad.body.code).toBe('invalid_query');
    const clamped = await request(server)
      .get('/api/v1/irrigation/soil?zone=front_lawn&days=9999')
      .expect(200);
    expect(clamped.body.days).toBe(400);
  });
});

describe('POST /irrigation/action declare_soil_state', () => {
  it("records the owner's soaked day: the ledger restarts from field capacity that day", async () => {
    const booted = await boot();
    const server = booted.service.server;
    await soilRows(booted);
    const cal = localCalendar(TZ, Math.floor(quietDemoClock().nowMs() / 1000));
    const date = cal.addDays(cal.today, -3);
    const res = await request(server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'declare_soil_state', zone: 'front_lawn', state: 'soaked', date })
      .expect(200);
    expect(res.body).toMatchObject({
      ok: true,
      kind: 'declare_soil_state',
      zone: 'front_lawn',
      state: 'soaked',
      date,
      source: 'owner',
    });
    const after = await request(server).get('/api/v1/irrigation/soil?zone=front_lawn&days=5').expect(200);
    const day = after.body.rows.find((r: { date_local: string }) => r.date_local === date);
    expect(day.detail.anchor).toEqual({ source: 'owner', depletion_mm: 0 });
    expect(day.detail.start_range_mm).toEqual([0, 0]);
    // Known from then on: every later day closes on a single number.
    for (const r of after.body.rows.filter((x: { date_local: string }) => x.date_local >= date)) {
      expect(r.depletion_range_mm).toBeNull();
    }
  });

  it('refuses a future date, a bad state and an unknown zone with the spec codes', async () => {
    const booted = await boot();
    const server = booted.service.server;
    const cal = localCalendar(TZ, Math.floor(quietDemoClock().nowMs() / 1000));
    const future = await request(server)
      .post('/api/v1/irrigation/action')
      .send({
        kind: 'declare_soil_state',
        zone: 'front_lawn',
        state: 'soaked',
        date: cal.addDays(cal.today, 1),
      })
      .expect(400);
    expect(future.body.code).toBe('soil_date_out_of_range');
    const state = await request(server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'declare_soil_state', zone: 'front_lawn', state: 'dry' })
      .expect(400);
    expect(state.body.code).toBe('invalid_body');
    const zone = await request(server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'declare_soil_state', zone: 'front-lawn', state: 'soaked' })
      .expect(400);
    expect(zone.body.code).toBe('zone_unknown');
    const openapi = await request(server).get('/docs/openapi.json').expect(200);
    expect(Object.keys(openapi.body.paths)).toContain('/api/v1/irrigation/soil');
    expect(JSON.stringify(openapi.body.components.schemas)).toContain('declare_soil_state');
  });
});
