import http from 'node:http';
import request from 'supertest';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { demoClockAt, serviceTracker } from '../../helpers/service';

/**
 * The irrigation routes over the real service in demo mode: the snapshot as
 * the spec defines it, control actions (validated, persisted, applied), the
 * 400 for invalid valve actions, simulate, the
 * explanation and the stream.
 */

const services = serviceTracker();

describe('GET /irrigation/snapshot', () => {
  it('answers a snapshot that validates against the spec schema, under both prefixes', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    for (const prefix of ['/api/v1', '/api']) {
      const res = await request(booted.service.server).get(`${prefix}/irrigation/snapshot`).expect(200);
      const parsed = irrigationSnapshotSchema.safeParse(res.body);
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
      expect(res.body.zones).toHaveLength(6);
      expect(res.body.water_plan).toHaveLength(7);
      expect(res.body.controls_persisted).toBe(true);
      expect(res.body.current_weather.air_temp_f.source_id).toBe('demo');
    }
  });

  it('answers 409 config_absent before any config exists', async () => {
    const booted = await services.boot();
    const res = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(409);
    expect(res.body.code).toBe('config_absent');
  });
});

describe('POST /irrigation/action', () => {
  it('persists a pause across a restart and the snapshot reports it', async () => {
    const first = await services.boot({ env: { DEMO: '1' } });
    const until = Math.floor(Date.now() / 1000) + 30 * 86400;
    await request(first.service.server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'set_pause_until', epoch: until })
      .expect(200);
    const paused = await request(first.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(paused.body.pause_until_epoch).toBe(until);
    expect(paused.body.skip_check.is_paused).toBe(true);
    await first.service.stop();

    const second = await services.boot({ dataDir: first.dataDir, env: { DEMO: '1' } });
    const again = await request(second.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(again.body.pause_until_epoch).toBe(until);
    await request(second.service.server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'clear_pause_until' })
      .expect(200);
    const cleared = await request(second.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(cleared.body.pause_until_epoch).toBe(0);
  });

  it('records a verdict change with the control that caused it, and nothing on a restart', async () => {
    // A demo day chosen (2026-11-26 02:00 EST, dry, some zones with a deficit): on the suite's
    // own day the demo may forecast rain, and a global run on a yard that lacks nothing changes
    // no verdict, so nothing would be recorded (CI met such an hour).
    const demoDay = Date.UTC(2026, 10, 26, 7);
    const first = await services.boot({
      env: { DEMO: '1' },
      serviceOptions: { clock: demoClockAt(demoDay) },
    });
    const server = first.service.server;
    const act = (body: object) => request(server).post('/api/v1/irrigation/action').send(body).expect(200);
    type Transition = { verdict: string; previous_verdict: string | null; reason: Record<string, unknown> };
    const decisions = async (): Promise<Transition[]> =>
      (await request(server).get('/api/v1/irrigation/decisions').expect(200)).body.decisions as Transition[];

    await act({ kind: 'set_pause_until', epoch: Math.floor(demoDay / 1000) + 30 * 86_400 });
    const paused = (await decisions()).at(-1);
    expect(paused).toMatchObject({
      verdict: 'paused',
      reason: { reason_code: 'paused', deciding: 'controls', reason: 'Irrigation is paused.' },
    });

    // Only a change of verdict is recorded: the global run is set before the pause ends, so the
    // pause gives way to the control's water, not to the demo's own verdict; the global skip
    // then changes water to skip.
    await act({ kind: 'set_global_override', mode: 'run' });
    await act({ kind: 'clear_pause_until' });
    const forced = (await decisions()).at(-1);
    expect(forced).toMatchObject({
      verdict: 'water',
      previous_verdict: 'paused',
      reason: { reason_code: 'global_override_run', deciding: 'controls' },
    });
    await act({ kind: 'set_global_override', mode: 'skip' });
    const held = (await decisions()).at(-1);
    expect(held).toMatchObject({
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'global_override_skip', deciding: 'controls' },
    });
    const count = (await decisions()).length;
    await first.service.stop();

    const second = await services.boot({
      dataDir: first.dataDir,
      env: { DEMO: '1' },
      serviceOptions: { clock: demoClockAt(demoDay) },
    });
    await request(second.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    const after = (await request(second.service.server).get('/api/v1/irrigation/decisions').expect(200)).body
      .decisions as Transition[];
    expect(after).toHaveLength(count);
  });

  it('refuses bad actions with the spec codes and changes nothing', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const post = (body: unknown) =>
      request(booted.service.server)
        .post('/api/v1/irrigation/action')
        .send(body as object);
    const wind = await post({ kind: 'set_threshold', key: 'max_wind_mph', value: 51 }).expect(400);
    expect(wind.body.code).toBe('threshold_out_of_range');
    expect(wind.body.error).toContain('0');
    const unknown = await post({ kind: 'set_zone_override', zone: 'Front Lawn', mode: 'skip' }).expect(400);
    expect(unknown.body.code).toBe('zone_unknown');
    expect(unknown.body.mapped_zones).toContain('front_lawn');
    expect(unknown.body.hint).toBeTruthy();
    expect((await post({ kind: 'run_sequence_now' }).expect(400)).body.code).toBe('action_removed');
    const noSeconds = await post({ kind: 'run', zone: 'front_lawn', seconds: 0 }).expect(400);
    expect(noSeconds.body.code).toBe('invalid_body');
    const unknownRun = await post({ kind: 'run', zone: 'nowhere', seconds: 60 }).expect(400);
    expect(unknownRun.body.code).toBe('zone_unknown');
    expect(unknownRun.body.mapped_zones).toContain('front_lawn');
    const snapshot = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(snapshot.body.pause_until_epoch).toBe(0);
  });

  it('applies a zone override that beats the global one', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const post = (body: unknown) =>
      request(booted.service.server)
        .post('/api/v1/irrigation/action')
        .send(body as object);
    await post({ kind: 'set_global_override', mode: 'skip' }).expect(200);
    await post({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'run' }).expect(200);
    const snapshot = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    const today = snapshot.body.water_plan[0].zones;
    const front = today.find((z: { zone: string }) => z.zone === 'front_lawn');
    const back = today.find((z: { zone: string }) => z.zone === 'back_lawn');
    expect(back.reason_code).toMatch(/global/);
    expect(front.reason_code).not.toMatch(/global/);
    // The overrides in force are stated, not left to be inferred from the plan.
    expect(snapshot.body.global_override).toBe('skip');
    const zones = snapshot.body.zones as { slug: string; override: string }[];
    expect(zones.find((z) => z.slug === 'front_lawn')?.override).toBe('run');
    expect(zones.find((z) => z.slug === 'back_lawn')?.override).toBe('auto');
  });
});

describe('simulate, explanation, stream', () => {
  it('simulates a scenario without changing the live snapshot', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const live = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    const res = await request(booted.service.server)
      .post('/api/v1/irrigation/simulate')
      .send({ weather: { rain_intensity_in_hr: 0.5 } })
      .expect(200);
    expect(res.body.simulated).toBe(true);
    expect(res.body.snapshot.skip_check.rain_intensity_now_in_hr).toBe(0.5);
    expect(res.body.verdict).toBe('skip');
    await request(booted.service.server).post('/api/v1/irrigation/simulate').send({ bogus: 1 }).expect(400);
    const after = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(after.body.skip_check.rain_intensity_now_in_hr).toBe(
      live.body.skip_check.rain_intensity_now_in_hr,
    );
  });

  it('explains today in plain English and streams snapshot events', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const explanation = await request(booted.service.server)
      .get('/api/v1/irrigation/explanation')
      .expect(200);
    expect(explanation.body.text).toMatch(/^Verdict for \d{4}-\d{2}-\d{2}/);
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.get(`http://127.0.0.1:${booted.port}/api/v1/irrigation/stream`, (res) => {
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          if (buffer.includes('event: snapshot\ndata: ')) {
            req.destroy();
            resolve(buffer);
          }
        });
      });
      req.on('error', reject);
    });
    expect(text).toContain('"water_plan"');
  });
});

describe('watering restrictions', () => {
  it('come from engine.restrictions, and rules that allow no weekday are refused', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const server = booted.service.server;
    const config = (await request(server).get('/api/v1/config').expect(200)).body;
    config.engine = { ...config.engine, restrictions: { allowed_weekdays: [3, 6] } };
    await request(server).put('/api/v1/config').send(config).expect(200);
    const snapshot = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(snapshot.body.restriction_allowed_days).toEqual([3, 6]);

    config.engine.restrictions = {
      allowed_weekdays: [3],
      address_parity: { house_number: 12, odd_weekdays: [3], even_weekdays: [4] },
    };
    const refused = await request(server).put('/api/v1/config').send(config).expect(422);
    const codes = refused.body.validation.errors.map((e: { code: string }) => e.code);
    expect(codes).toContain('restrictions_no_weekday');
  });
});
