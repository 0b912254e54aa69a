import fs from 'node:fs';
import { EventBus, type TuningDigestEvent } from '../../../server/src/core/bus';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import { TuningDigest } from '../../../server/src/irrigation/tuning/tuning-digest';
import { toToml } from '../../../server/src/config/toml';
import { parseToml } from '../../../server/src/config/toml';
import { silencing } from '../../../server/src/irrigation/tuning/dismissals';
import { storeEvidenceProviders } from '../../../server/src/irrigation/tuning/evidence-source';
import { recommendationId } from '../../../server/src/irrigation/tuning/recommendation';
import { TuningError } from '../../../server/src/irrigation/tuning/tuning-error';
import { TuningService } from '../../../server/src/irrigation/tuning/tuning-service';
import { makeService, rejection, tempDir, useBuiltinKinds } from '../../helpers/config-fixtures';
import { tempStore } from '../../store/temp-db';
import { addDays, ledgerRow, localEpoch, recordDay, recordSession, TZ } from './recorded-history';

/**
 * The tuning report, dismissals and apply over recorded history built in a
 * real store (weeks of sessions, ledger rows, decisions, gauge rain) with a
 * fake clock, and a real ConfigService (snapshots, atomic writes, rollback).
 */

useBuiltinKinds();
const stores = tempStore();
const dir = tempDir();

const TODAY = '2025-07-20';
const NOW_MS = localEpoch(TODAY, 12) * 1000;

const CONFIG = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74.0 }, timezone: TZ },
  zones: {
    front: {
      display_name: 'Front lawn',
      species: 'bermuda',
      soil_texture: 'loam',
      sprinkler_type: 'rotor',
      max_run_minutes: 30,
    },
    back: {
      display_name: 'Back beds',
      species: 'ornamental_shrubs',
      scheduling_model: 'weekly',
      sessions_per_week: 2,
      weekly_budget_in: 1,
      max_run_minutes: 30,
    },
    side: { display_name: 'Side strip', soil_sensor_id: 'source:eco:soil_moisture_pct:1' },
  },
};

async function rig(config: Record<string, unknown> = CONFIG) {
  const clock = new ManualClock(NOW_MS);
  const handle = makeService(dir(), {}, { clock });
  fs.writeFileSync(handle.configPath, toToml(config as never));
  await handle.service.load();
  const store = stores.store();
  const tuning = new TuningService({
    store,
    clock,
    config: handle.service,
    timezone: () => TZ,
    rainThresholdIn: () => 0.25,
    restartReasons: () => [],
    providers: storeEvidenceProviders(store),
  });
  return { tuning, store, clock, config: handle.service, configPath: handle.configPath };
}

/** Six sessions of the front lawn in the last two weeks, the 30-minute cap binding each (needs 40..48 min). */
function cappedFront(
  store: Parameters<typeof recordSession>[0],
  ran: 'real' | 'dry' | 'failed' = 'real',
): void {
  [13, 11, 9, 7, 5, 3].forEach((back, i) =>
    recordSession(store, {
      zone: 'front',
      date: addDays(TODAY, -back),
      planned_s: 1800,
      needed_s: (40 + i * 1.6) * 60,
      cap_min: 30,
      ran,
      cycles: 2,
    }),
  );
}

const zone = (report: ReturnType<TuningService['report']>, slug: string) => {
  const entry = report.zones.find((z) => z.slug === slug);
  if (!entry) throw new Error(`no ${slug}`);
  return entry;
};

describe('the tuning report', () => {
  it('recommends a longer run cap when it cut the sessions short, with checkable evidence', async () => {
    const { tuning, store } = await rig();
    cappedFront(store);
    const report = tuning.report(14);
    expect(report).toMatchObject({ generated_epoch: NOW_MS / 1000, window_days: 14 });
    const front = zone(report, 'front');
    expect(front).toMatchObject({
      slug: 'front',
      display_name: 'Front lawn',
      status: 'recommendation',
      dismissed: false,
      dismissed_fields: [],
    });
    expect(front.recommendation).toEqual({
      id: recommendationId('front', 'max_run_minutes', 50),
      field: 'max_run_minutes',
      current_value: 30,
      suggested_value: 50,
      companion_fields: [],
      headline: expect.stringContaining('Raise the run cap to 50 min'),
      evidence: expect.arrayContaining([
        '6 of 6 watered sessions in the last 14 days needed more than the 30 min cap (up to 48 min).',
        `${addDays(TODAY, -13)}: planned 30 min, needed 40 min; watered 30 min (session sched-${addDays(TODAY, -13)}-front).`,
      ]),
      confidence: 'high',
    });
    expect(front.lines[0]).toBe('Watered on 6 day(s) in the last 14 days, 3 h 0 min in all.');
    // The same evidence gives the same id.
    expect(tuning.report(14).zones[0]?.recommendation?.id).toBe(front.recommendation?.id);
  });

  it('recommends the run cap the day a second short session in a row finds the zone past RAW (rule 6)', async () => {
    const { tuning, store } = await rig();
    const yesterday = addDays(TODAY, -1);
    recordSession(store, { zone: 'front', date: yesterday, planned_s: 1800, needed_s: 2700, cap_min: 30 });
    recordSession(store, { zone: 'front', date: TODAY, planned_s: 1800, needed_s: 3000, cap_min: 30 });
    const closing = (date: string, depletion: number, seconds: number, net: number) =>
      ledgerRow('front', date, { raw: 12, depletion, seconds, net });
    store.soilLedger.write(
      'front',
      [closing(addDays(TODAY, -2), 10.5, 0, 0), closing(yesterday, 14.2, 1800, 7.2)],
      0,
    );
    const front = zone(tuning.report(14), 'front');
    expect(front.recommendation).toMatchObject({
      field: 'max_run_minutes',
      current_value: 30,
      suggested_value: 50,
      confidence: 'medium',
      headline:
        'Raise the run cap to 50 min: the 30 min cap cut the last 2 sessions short and the soil ledger shows the zone past RAW.',
      evidence: [
        'The last 2 watered sessions in a row needed more than the 30 min cap (up to 50 min).',
        `${yesterday}: planned 30 min of 45 min needed, 3.6 mm net left out (session sched-${yesterday}-front).`,
        `${TODAY}: planned 30 min of 50 min needed (session sched-${TODAY}-front).`,
        `${yesterday}: the day closed at 14.2 mm depletion, past RAW 12 mm.`,
      ],
    });
    // Applied through the same path as POST /config/zones/apply: derived again inside the lock.
    const rec = front.recommendation!;
    await expect(
      tuning.apply({ zone_slug: 'front', recommendation_id: rec.id, field: rec.field, value: 50 }),
    ).resolves.toMatchObject({ applied: true, old_value: 30, new_value: 50 });
    // Judged against the cap in force now, the same sessions no longer bind it.
    expect(zone(tuning.report(14), 'front').recommendation).toBeNull();
  });

  it('waits for the ledger: two short sessions within RAW are not yet a recommendation', async () => {
    const { tuning, store } = await rig();
    const yesterday = addDays(TODAY, -1);
    recordSession(store, { zone: 'front', date: yesterday, planned_s: 1800, needed_s: 2700, cap_min: 30 });
    recordSession(store, { zone: 'front', date: TODAY, planned_s: 1800, needed_s: 3000, cap_min: 30 });
    store.soilLedger.write(
      'front',
      [ledgerRow('front', yesterday, { raw: 12, depletion: 11.9, seconds: 1800, net: 7.1 })],
      0,
    );
    expect(zone(tuning.report(14), 'front').recommendation).toBeNull();
  });

  it('recommends nothing from pretend water', async () => {
    const { tuning, store } = await rig();
    cappedFront(store, 'dry');
    const front = zone(tuning.report(14), 'front');
    expect(front.status).toBe('insufficient_data');
    expect(front.recommendation).toBeNull();
    expect(front.lines).toEqual(
      expect.arrayContaining([
        'No watering recorded in the last 14 days.',
        '12 dry-run run(s) are pretend water and are not judged.',
        'Run cap: 0 watered session(s) in the last 14 days; at least 3 are needed to judge it.',
      ]),
    );
  });

  it('recommends nothing from failed dispatches', async () => {
    const { tuning, store } = await rig();
    cappedFront(store, 'failed');
    expect(zone(tuning.report(14), 'front')).toMatchObject({
      status: 'insufficient_data',
      recommendation: null,
    });
  });

  it('recommends nothing when the cap bound one session in six', async () => {
    const { tuning, store } = await rig();
    [6, 5, 4, 3, 2].forEach((back) =>
      recordSession(store, { zone: 'front', date: addDays(TODAY, -back), planned_s: 1500, cap_min: 30 }),
    );
    recordSession(store, {
      zone: 'front',
      date: addDays(TODAY, -1),
      planned_s: 1800,
      needed_s: 2700,
      cap_min: 30,
    });
    const front = zone(tuning.report(14), 'front');
    expect(front).toMatchObject({ status: 'ok', recommendation: null });
    expect(front.lines).toContain(
      'Run cap: 30 min bound 1 of 6 watered sessions in the last 14 days; no change needed.',
    );
  });

  it('judges only the window asked for', async () => {
    const { tuning, store } = await rig();
    [13, 12, 11, 10].forEach((back) =>
      recordSession(store, {
        zone: 'front',
        date: addDays(TODAY, -back),
        planned_s: 1800,
        needed_s: 3000,
        cap_min: 30,
      }),
    );
    expect(zone(tuning.report(14), 'front').recommendation?.suggested_value).toBe(50);
    expect(zone(tuning.report(7), 'front').recommendation).toBeNull();
  });

  it('says what each zone waits for: a flow meter, a soil model, a probe, rain, the ET record', async () => {
    const { tuning } = await rig();
    const report = tuning.report(14);
    expect(zone(report, 'side')).toMatchObject({ status: 'insufficient_data', recommendation: null });
    expect(zone(report, 'side').lines).toEqual(
      expect.arrayContaining([
        'Sprinkler rate: waiting for metered run volumes from a flow meter.',
        'Waiting for a soil model (the zone lacks species, soil_texture, sprinkler_type or precip_rate_mm_hr): ' +
          'root_depth_mm, mad_pct_override, soil_texture, rain_credit_cap_in.',
      ]),
    );
    expect(zone(report, 'front').lines).toEqual(
      expect.arrayContaining([
        'Waiting for a bound soil probe: root_depth_mm, mad_pct_override, soil_texture.',
        'Rain credit cap: no rain of 1 mm or more in the last 14 days to judge it by.',
      ]),
    );
    expect(zone(report, 'back').lines).toContain(
      'Weekly budget: waiting for the daily weather record (ET0) (ET0 and rain are known on 0 of the last 14 days; 12 are needed).',
    );
    expect(zone(report, 'front').lines.some((l) => l.startsWith('Weekly budget'))).toBe(false);
  });

  it('recommends more weekly sessions when the cap cut them short, after the run cap in priority', async () => {
    const { tuning, store } = await rig();
    [12, 9, 5, 2].forEach((back) =>
      recordSession(store, {
        zone: 'back',
        date: addDays(TODAY, -back),
        planned_s: 1800,
        needed_s: 2700,
        cap_min: 30,
        model: 'weekly',
      }),
    );
    const back = zone(tuning.report(14), 'back');
    expect(back.recommendation?.field).toBe('max_run_minutes');
    expect(back.lines).toContain(
      'Sessions per week: the 30 min cap cut 4 of 4 weekly sessions in the last 14 days short of their share of the budget.',
    );
    tuning.dismiss({
      zone_slug: 'back',
      field: 'max_run_minutes',
      recommendation_id: back.recommendation?.id,
      kind: 'permanent',
    });
    const after = zone(tuning.report(14), 'back');
    expect(after.recommendation).toMatchObject({
      field: 'sessions_per_week',
      current_value: 2,
      suggested_value: 3,
      id: recommendationId('back', 'sessions_per_week', 3),
    });
    expect(after).toMatchObject({
      status: 'recommendation',
      dismissed: true,
      dismissed_fields: ['max_run_minutes'],
    });
    expect(after.lines.at(-1)).toMatch(
      /^Dismissed for good \(undismiss max_run_minutes to see it again\): Raise the run cap/,
    );
  });
});

describe('dismissals', () => {
  it('a snooze silences that exact id; a drifted value returns early; undismiss brings it back', async () => {
    const { tuning, store, clock } = await rig();
    cappedFront(store);
    const first = zone(tuning.report(14), 'front').recommendation;
    const answer = tuning.dismiss({
      zone_slug: 'front',
      field: 'max_run_minutes',
      recommendation_id: first?.id,
      kind: 'snooze',
    });
    expect(answer).toMatchObject({ kind: 'snooze', expires_epoch: NOW_MS / 1000 + 30 * 86400 });
    let front = zone(tuning.report(14), 'front');
    expect(front).toMatchObject({
      status: 'ok',
      recommendation: null,
      dismissed: true,
      dismissed_fields: ['max_run_minutes'],
    });
    expect(front.lines.at(-1)).toBe(`Snoozed until 2025-08-19: ${first?.headline}`);

    // A day later a longer session moves the suggestion to 60 min: a new id, back before the snooze ends.
    clock.advance(86_400_000);
    recordSession(store, { zone: 'front', date: TODAY, planned_s: 1800, needed_s: 3540, cap_min: 30 });
    front = zone(tuning.report(14), 'front');
    expect(front.recommendation?.suggested_value).toBe(60);
    expect(front.dismissed).toBe(false);

    expect(tuning.undismiss({ zone_slug: 'front', field: 'max_run_minutes' })).toEqual({ removed: 1 });
    expect(tuning.undismiss({ zone_slug: 'front', field: 'max_run_minutes' })).toEqual({ removed: 0 });
  });

  it('a permanent dismissal survives the value drifting; undismiss counts both kinds', async () => {
    const { tuning, store, clock } = await rig();
    cappedFront(store);
    const id = zone(tuning.report(14), 'front').recommendation?.id;
    tuning.dismiss({ zone_slug: 'front', field: 'max_run_minutes', recommendation_id: id, kind: 'snooze' });
    tuning.dismiss({
      zone_slug: 'front',
      field: 'max_run_minutes',
      recommendation_id: id,
      kind: 'permanent',
    });
    clock.advance(86_400_000);
    recordSession(store, { zone: 'front', date: TODAY, planned_s: 1800, needed_s: 3540, cap_min: 30 });
    const front = zone(tuning.report(14), 'front');
    expect(front).toMatchObject({
      recommendation: null,
      dismissed: true,
      dismissed_fields: ['max_run_minutes'],
    });
    expect(front.lines.at(-1)).toContain('Raise the run cap to 60 min');
    expect(tuning.undismiss({ zone_slug: 'front', field: 'max_run_minutes' })).toEqual({ removed: 2 });
    expect(zone(tuning.report(14), 'front').recommendation?.suggested_value).toBe(60);
  });

  it('a snooze ends after 30 days', () => {
    const rec = { id: 'abc', field: 'max_run_minutes' } as never;
    const snooze = {
      zone: 'front',
      field: 'max_run_minutes',
      kind: 'snooze' as const,
      recommendation_id: 'abc',
      created_epoch: 0,
      expires_epoch: 30 * 86400,
    };
    expect(silencing('front', rec, [snooze], 30 * 86400 - 1)).toBe(snooze);
    expect(silencing('front', rec, [snooze], 30 * 86400)).toBeNull();
    expect(silencing('back', rec, [snooze], 1)).toBeNull();
  });

  it('refuses a malformed body, an unknown zone and a field that cannot be tuned', async () => {
    const { tuning } = await rig();
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return [(err as TuningError).status, (err as TuningError).code];
      }
      return null;
    };
    expect(
      code(() =>
        tuning.dismiss({
          zone_slug: 'front',
          field: 'max_run_minutes',
          recommendation_id: 'x',
          kind: 'later',
        }),
      ),
    ).toEqual([400, 'invalid_body']);
    expect(
      code(() =>
        tuning.dismiss({
          zone_slug: 'nope',
          field: 'max_run_minutes',
          recommendation_id: 'x',
          kind: 'snooze',
        }),
      ),
    ).toEqual([400, 'zone_unknown']);
    expect(
      code(() =>
        tuning.dismiss({ zone_slug: 'front', field: 'species', recommendation_id: 'x', kind: 'snooze' }),
      ),
    ).toEqual([422, 'field_not_accepted']);
    expect(code(() => tuning.undismiss({ zone_slug: 'front' }))).toEqual([400, 'invalid_body']);
  });
});

describe('the scorecard', () => {
  it('stays null below min_scored_days and counts reactive skips apart', async () => {
    const { tuning, store } = await rig();
    recordDay(store, addDays(TODAY, -9), { verdict: 'skip', reason_code: 'tomorrow_rain' }, 0.6);
    recordDay(store, addDays(TODAY, -8), { verdict: 'skip', reason_code: 'rain_3day' }, 0.05);
    recordDay(store, addDays(TODAY, -7), { verdict: 'skip', reason_code: 'rain_today_forecast' }, null);
    recordDay(store, addDays(TODAY, -6), { verdict: 'water', reason_code: 'water' }, 0);
    let card = tuning.report(14).scorecard;
    expect(card).toMatchObject({
      window_days: 30,
      scored_days: null,
      confirmed_days: null,
      min_scored_days: 3,
      reactive_days: 0,
      reactive_line: null,
    });
    expect(card.line).toContain('2 forecast-rain skip(s)');

    recordDay(store, addDays(TODAY, -4), { verdict: 'skip', reason_code: 'rain_next_4h' }, 0.4);
    recordDay(store, addDays(TODAY, -3), { verdict: 'skip', reason_code: 'rain_now' }, 0.9);
    card = tuning.report(14).scorecard;
    expect(card).toMatchObject({ scored_days: 3, confirmed_days: 2, reactive_days: 1 });
    expect(card.line).toBe(
      'Skipped 3 day(s) for forecast rain in the last 30 that could be judged; the rain came on 2 of them.',
    );
    expect(card.reactive_line).toContain('never scored');
  });
});

describe('applying a recommendation', () => {
  it('re-derives, saves with a snapshot, answers the spec body, and a rollback restores the old value', async () => {
    const { tuning, store, config, configPath } = await rig();
    cappedFront(store);
    const rec = zone(tuning.report(14), 'front').recommendation;
    const result = await tuning.apply({
      zone_slug: 'front',
      recommendation_id: rec?.id,
      field: 'max_run_minutes',
      value: 50,
      window_days: 14,
    });
    expect(result).toMatchObject({
      applied: true,
      zone: 'front',
      field: 'max_run_minutes',
      old_value: 30,
      new_value: 50,
      validation: { ok: true },
      restart_required: false,
      restart_reasons: [],
    });
    expect(result.saved.previous_snapshot_ts).not.toBeNull();
    expect((parseToml(fs.readFileSync(configPath, 'utf8')).zones as never)['front']).toMatchObject({
      max_run_minutes: 50,
    });
    expect(config.current?.config.zones.front?.max_run_minutes).toBe(50);
    // The evidence now agrees with the config: nothing left to recommend, and the same id is stale.
    expect(zone(tuning.report(14), 'front')).toMatchObject({ status: 'ok', recommendation: null });
    const again = await rejection(
      tuning.apply({ zone_slug: 'front', recommendation_id: rec?.id, field: 'max_run_minutes', value: 50 }),
    );
    expect(again).toMatchObject({ status: 409, code: 'stale_recommendation', extra: { current: null } });

    await config.rollback(result.saved.previous_snapshot_ts as string);
    expect(config.current?.config.zones.front?.max_run_minutes).toBe(30);
    expect(zone(tuning.report(14), 'front').recommendation?.id).toBe(rec?.id);
  });

  it('answers 409 when the recommendation does not derive at the request window, writing nothing', async () => {
    const { tuning, store, configPath } = await rig();
    [13, 12, 11, 10].forEach((back) =>
      recordSession(store, {
        zone: 'front',
        date: addDays(TODAY, -back),
        planned_s: 1800,
        needed_s: 3000,
        cap_min: 30,
      }),
    );
    const id = zone(tuning.report(14), 'front').recommendation?.id;
    const before = fs.readFileSync(configPath, 'utf8');
    const err = await rejection(
      tuning.apply({
        zone_slug: 'front',
        recommendation_id: id,
        field: 'max_run_minutes',
        value: 50,
        window_days: 7,
      }),
    );
    expect(err).toBeInstanceOf(TuningError);
    expect(err).toMatchObject({ status: 409, code: 'stale_recommendation' });
    expect(fs.readFileSync(configPath, 'utf8')).toBe(before);
    // Echoing the window it came from (14), it applies; a window out of range is clamped (40 -> 30).
    await expect(
      tuning.apply({
        zone_slug: 'front',
        recommendation_id: id,
        field: 'max_run_minutes',
        value: 50,
        window_days: 40,
      }),
    ).resolves.toMatchObject({ new_value: 50 });
  });

  it('answers 422 for an out-of-band value or a field outside the accepted list, 400 for a bad body', async () => {
    const { tuning, store, configPath } = await rig();
    cappedFront(store);
    const id = zone(tuning.report(14), 'front').recommendation?.id;
    const before = fs.readFileSync(configPath, 'utf8');
    const attempt = (body: Record<string, unknown>) =>
      rejection(
        tuning.apply({
          zone_slug: 'front',
          recommendation_id: id,
          field: 'max_run_minutes',
          value: 50,
          ...body,
        }),
      );
    expect(await attempt({ value: 400 })).toMatchObject({ status: 422, code: 'value_out_of_band' });
    expect(await attempt({ value: 45.5 })).toMatchObject({ status: 422, code: 'value_out_of_band' });
    expect(await attempt({ value: '50' })).toMatchObject({ status: 422, code: 'value_out_of_band' });
    expect(await attempt({ field: 'species', value: 'bermuda' })).toMatchObject({
      status: 422,
      code: 'field_not_accepted',
    });
    expect(await attempt({ field: 'rain_credit_cap_in', value: 9 })).toMatchObject({
      status: 422,
      code: 'value_out_of_band',
    });
    expect(await attempt({ zone_slug: 'nowhere' })).toMatchObject({ status: 400, code: 'zone_unknown' });
    expect(await attempt({ window_days: 'fourteen' })).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(
      await rejection(tuning.apply({ zone_slug: 'front', recommendation_id: id, field: 'max_run_minutes' })),
    ).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(fs.readFileSync(configPath, 'utf8')).toBe(before);
  });

  it('writes an owner-adjusted value within the band, and null clears the override', async () => {
    const { tuning, store, config } = await rig();
    cappedFront(store);
    const id = zone(tuning.report(14), 'front').recommendation?.id;
    await tuning.apply({ zone_slug: 'front', recommendation_id: id, field: 'max_run_minutes', value: null });
    expect(config.current?.document.zones).toMatchObject({
      front: expect.not.objectContaining({ max_run_minutes: expect.anything() }),
    });
    expect(config.current?.config.zones.front?.max_run_minutes ?? null).toBeNull();
  });
});

describe('the weekly digest', () => {
  it('announces the shown recommendations once a week, an empty list when all are silenced, across restarts', async () => {
    const { tuning, store, clock } = await rig();
    cappedFront(store);
    const bus = new EventBus();
    const heard: TuningDigestEvent[] = [];
    bus.on('tuning.digest', (event) => heard.push(event));
    const digest = () =>
      new TuningDigest({
        bus,
        clock,
        logger: silentLogger(),
        tuning,
        announcements: store.announcements,
        windowDays: 30,
      });

    expect(digest().check()).toBe(false); // the first run only starts the week
    clock.advance(6 * 86_400_000);
    expect(digest().check()).toBe(false);
    clock.advance(86_400_000);
    expect(digest().check()).toBe(true);
    expect(heard).toEqual([
      {
        window_days: 30,
        epoch: NOW_MS / 1000 + 7 * 86400,
        recommendations: [
          {
            zone: 'front',
            field: 'max_run_minutes',
            id: recommendationId('front', 'max_run_minutes', 50),
            headline: expect.stringContaining('Raise the run cap'),
          },
        ],
      },
    ]);
    expect(digest().check()).toBe(false); // a restart the same week says nothing

    tuning.dismiss({
      zone_slug: 'front',
      field: 'max_run_minutes',
      recommendation_id: recommendationId('front', 'max_run_minutes', 50),
      kind: 'permanent',
    });
    clock.advance(7 * 86_400_000);
    expect(digest().check()).toBe(true);
    expect(heard[1]?.recommendations).toEqual([]);
  });
});
