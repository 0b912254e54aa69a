import {
  dayLabel,
  nextRun,
  sevenDays,
  todayVerdict,
  zoneStandings,
} from '../../web/app/pages/dashboard/verdict';
import type { ForecastSnapshot } from '../../web/app/pages/dashboard/weather-types';
import type {
  IrrigationSnapshot,
  WaterPlanDay,
  ZoneVerdict,
} from '../../web/app/pages/zones/irrigation-types';

function snapshot(over: Partial<IrrigationSnapshot> = {}): IrrigationSnapshot {
  return { last_refresh_epoch: 1, zones: [], ...over };
}

const row = (over: Partial<ZoneVerdict>): ZoneVerdict => ({
  zone: 'front_lawn',
  name: 'Front lawn',
  verdict: 'none',
  reason_code: 'not_due',
  reason: 'depletion 3.1 mm is below the trigger (RAW 5.6 mm)',
  water_need: 'low',
  planned_seconds: 0,
  ...over,
});

function planDay(
  date: string,
  offset: number,
  zones: { zone: string; name: string; seconds: number; code?: string; need?: string; reason?: string }[],
): WaterPlanDay {
  return {
    date_local: date,
    day_offset: offset,
    time_epoch: 0,
    start_epoch: null,
    finish_epoch: null,
    forecast_rain_mm: null,
    expected_rain_mm: null,
    rain_probability_pct: null,
    evidence_complete: true,
    zones: zones.map((z) => ({
      zone: z.zone,
      name: z.name,
      reason: z.reason ?? 'depletion below the trigger',
      reason_code: z.code ?? 'not_due',
      water_need: z.need ?? 'none',
      planned_seconds: z.seconds,
      depletion_mm: null,
      trigger_mm: null,
      capacity_mm: null,
    })),
  };
}

describe('todayVerdict', () => {
  it('says unknown without a snapshot', () => {
    expect(todayVerdict(null)).toEqual({
      kind: 'unknown',
      sentence: "Today's verdict is not known yet.",
      details: [],
    });
  });

  it('quotes the deciding skip rule', () => {
    const v = todayVerdict(
      snapshot({
        decision_trace: {
          verdict: 'skip',
          deciding: 'skip_check',
          reason: 'Already wet: 0.573 in of rain today (measured by the gauge), at or above 0.05 in.',
        },
      }),
    );
    expect(v.kind).toBe('skip');
    expect(v.sentence).toBe(
      'Skipping today because already wet: 0.573 in of rain today (measured by the gauge), at or above 0.05 in.',
    );
  });

  it('lists watering zones with minutes and a shared reason', () => {
    const v = todayVerdict(
      snapshot({
        decision_trace: { verdict: 'water' },
        zone_verdicts: [
          row({
            verdict: 'water',
            planned_seconds: 1261,
            reason_code: 'zone_override_run',
            reason: 'zone front_lawn is set to always run; 1261 s',
          }),
          row({ zone: 'back', name: 'Back lawn' }),
        ],
      }),
    );
    expect(v).toEqual({
      kind: 'water',
      sentence: 'Watering today: Front lawn 21 min, because zone front_lawn is set to always run.',
      details: [],
    });
  });

  it('lists each reason when zones water for different reasons', () => {
    const v = todayVerdict(
      snapshot({
        decision_trace: { verdict: 'water' },
        zone_verdicts: [
          row({ verdict: 'water', planned_seconds: 600, reason_code: 'due', reason: 'soil at the trigger' }),
          row({
            zone: 'b',
            name: 'Back lawn',
            verdict: 'water',
            planned_seconds: 300,
            reason_code: 'zone_override_run',
            reason: 'forced',
          }),
        ],
      }),
    );
    expect(v.sentence).toBe('Watering today: Front lawn 10 min, Back lawn 5 min.');
    expect(v.details).toEqual(['Front lawn: soil at the trigger', 'Back lawn: forced']);
  });

  it('names a pause with its end', () => {
    const v = todayVerdict(
      snapshot({ decision_trace: { verdict: 'paused' }, pause_until_epoch: 2_000_000_000 }),
      1_000_000_000_000,
    );
    expect(v.kind).toBe('skip');
    expect(v.sentence).toMatch(/^Skipping today because irrigation is paused until .+\.$/);
  });

  it('explains a hold as missing evidence, and "none" with the unknown zones', () => {
    expect(
      todayVerdict(
        snapshot({ decision_trace: { verdict: 'hold', reason: 'Vegetable garden: no water on a guess' } }),
      ).sentence,
    ).toBe(
      'Skipping today because the evidence is incomplete (no water on a guess): Vegetable garden: no water on a guess.',
    );
    const none = todayVerdict(
      snapshot({
        decision_trace: { verdict: 'none' },
        zone_verdicts: [
          row({}),
          row({ zone: 'veg', name: 'Vegetable garden', water_need: 'unknown', reason: 'depletion unknown.' }),
        ],
      }),
    );
    // Unknown soil is not "no need": the sentence says what is known, the standings list the zone.
    expect(none.sentence).toBe('Not watering today: no zone is known to need water.');
    expect(
      zoneStandings(
        snapshot({
          zone_verdicts: [
            row({}),
            row({
              zone: 'veg',
              name: 'Vegetable garden',
              water_need: 'unknown',
              reason: 'depletion unknown.',
            }),
          ],
        }),
      ).unknown,
    ).toEqual([{ slug: 'veg', name: 'Vegetable garden', reason: 'depletion unknown', seconds: 0 }]);
  });

  it('keeps a control reason as written (not lower-cased)', () => {
    const v = todayVerdict(
      snapshot({
        decision_trace: {
          verdict: 'skip',
          deciding: 'controls',
          reason: 'Front lawn skipped by the tomorrow override',
        },
      }),
    );
    expect(v.sentence).toBe('Skipping today because Front lawn skipped by the tomorrow override.');
  });
});

describe('zoneStandings: due, held, unknown, not due', () => {
  // The demo's morning that read "no zone needs water" while one zone was due and five unknown.
  const demo = snapshot({
    next_run_state: 'no_water_planned',
    next_run_epoch: 0,
    decision_trace: {
      verdict: 'skip',
      deciding: 'skip_check',
      reason: 'Heavy rain in the next 3 days: 0.448 in weighted.',
    },
    zone_verdicts: [
      row({
        zone: 'front_lawn',
        name: 'Front lawn',
        verdict: 'skip',
        reason_code: 'rain_3day',
        reason: 'Heavy rain in the next 3 days: 0.448 in weighted, at or above 0.375 in (1.5 x 0.25 in).',
        water_need: 'due',
      }),
      row({
        zone: 'back_lawn',
        name: 'Back lawn',
        verdict: 'hold',
        reason_code: 'depletion_unknown',
        reason:
          'root-zone depletion is only known to lie in 8.0..24.0 mm against a trigger of 12.0 mm: no water on a guess',
        water_need: 'unknown',
      }),
      row({
        zone: 'beds',
        name: 'Beds',
        verdict: 'water',
        reason_code: 'water',
        water_need: 'due',
        planned_seconds: 900,
        reason: 'depletion 14 mm reached the trigger (RAW 12 mm); 900 s',
      }),
      row({ zone: 'xeri', name: 'Xeriscape' }),
    ],
  });

  it('puts every zone in one place, with the reason in the user units', () => {
    const s = zoneStandings(demo, { units: 'metric' });
    expect(s.watering.map((z) => [z.slug, z.seconds])).toEqual([['beds', 900]]);
    // A due zone under a forecast-rain code is the engine's bet: waiting for rain, not held.
    expect(s.held).toEqual([]);
    expect(s.waiting).toEqual([
      {
        slug: 'front_lawn',
        name: 'Front lawn',
        reason: 'heavy rain in the next 3 days: 11.4 mm weighted, at or above 9.5 mm (1.5 x 6.3 mm)',
        seconds: 0,
      },
    ]);
    expect(s.unknown.map((z) => z.slug)).toEqual(['back_lawn']);
    expect(zoneStandings(demo, { units: 'imperial' }).unknown[0]?.reason).toBe(
      'root-zone depletion is only known to lie in 0.31..0.94 in against a trigger of 0.47 in: no water on a guess',
    );
    expect(s.notDue.map((z) => z.slug)).toEqual(['xeri']);
  });

  it('says why nothing is planned without claiming no zone needs water', () => {
    const text = nextRun(demo).text;
    expect(text).toBe(
      'No watering planned in the next 7 days: Front lawn is due but waiting for forecast rain; the soil water of Back lawn is unknown, so it is not watered on a guess.',
    );
    expect(text).not.toContain('no zone needs water');
  });
});

describe('nextRun', () => {
  it('lists the zones and minutes of the planned day', () => {
    const n = nextRun(
      snapshot({
        next_run_state: 'at',
        next_run_epoch: 1_795_434_228,
        next_run_day_offset: 2,
        next_run_total_minutes: 11,
        water_plan: [
          planDay('2026-11-21', 0, [{ zone: 'a', name: 'Front lawn', seconds: 1261 }]),
          planDay('2026-11-23', 2, [
            { zone: 'a', name: 'Front lawn', seconds: 660 },
            { zone: 'b', name: 'Back lawn', seconds: 0 },
          ]),
        ],
      }),
    );
    expect(n).toMatchObject({
      planned: true,
      epoch: 1_795_434_228,
      minutes: 11,
      zones: [{ name: 'Front lawn', seconds: 660 }],
    });
    expect(n.text).toMatch(/^Next run .+: Front lawn 11 min \(11 min in all\)\.$/);
  });

  it('gives the reason when nothing is planned', () => {
    expect(nextRun(snapshot({ next_run_state: 'no_water_planned', next_run_epoch: 0 })).text).toBe(
      'No watering planned: no zone needs water in the next 7 days.',
    );
    expect(nextRun(snapshot({ next_run_state: 'no_location' })).text).toContain('location is not set');
    expect(nextRun(null).planned).toBe(false);
  });
});

describe('sevenDays', () => {
  const forecast: ForecastSnapshot = {
    last_refresh_epoch: 0,
    source_reachable: true,
    source_label: 'x',
    source_is_backup: false,
    timezone: 'UTC',
    hourly: [],
    past_daily: [],
    daily: [
      {
        date_local: '2026-11-21',
        precip_sum_in: 0.5,
        precip_probability_max: 70,
        et0_in: 0.2,
        et0_reported: true,
      },
      {
        date_local: '2026-11-22',
        precip_sum_in: null,
        precip_probability_max: null,
        et0_in: 0,
        et0_reported: false,
      },
      {
        date_local: '2026-11-23',
        precip_sum_in: 0,
        precip_probability_max: 5,
        et0_in: 0,
        et0_reported: true,
      },
    ],
  };
  const s = snapshot({
    seven_day_verdicts: [
      {
        date_local: '2026-11-21',
        day_offset: 0,
        temp_max_f: 80,
        temp_min_f: 60,
        precip_in: 0.56,
        precip_probability_max: 80,
        rain_evidence_incomplete: false,
        verdict: 'skip',
        reason: 'Already wet.',
      },
      {
        date_local: '2026-11-22',
        day_offset: 1,
        temp_max_f: null,
        temp_min_f: null,
        precip_in: null,
        precip_probability_max: null,
        rain_evidence_incomplete: true,
        verdict: 'water',
        reason: '',
      },
      {
        date_local: '2026-11-23',
        day_offset: 2,
        temp_max_f: 85,
        temp_min_f: 65,
        precip_in: 0,
        precip_probability_max: 5,
        rain_evidence_incomplete: false,
        verdict: 'water',
        reason: '',
      },
    ],
    water_plan: [
      planDay('2026-11-21', 0, [{ zone: 'a', name: 'Front lawn', seconds: 0 }]),
      planDay('2026-11-22', 1, [
        { zone: 'a', name: 'Front lawn', seconds: 660 },
        { zone: 'b', name: 'Back lawn', seconds: 120 },
      ]),
      planDay('2026-11-23', 2, [{ zone: 'a', name: 'Front lawn', seconds: 0, need: 'unknown' }]),
    ],
    decision_trace: { et0_days: [{ date_local: '2026-11-22', et0_mm: 2.7 }] },
  });
  const days = sevenDays(s, forecast);

  it('says skip with the reason, or water with the planned zones', () => {
    expect(days.map((d) => [d.label, d.kind, d.verdictText])).toEqual([
      ['Today', 'skip', 'Skip'],
      ['Tomorrow', 'water', 'Water'],
      [dayLabel('2026-11-23', 2), 'none', 'None planned'],
    ]);
    expect(days[0]?.reason).toBe('Already wet');
    expect(days[1]?.reason).toBe('Front lawn 11 min, Back lawn 2 min');
    expect(days[1]?.plannedSeconds).toBe(780);
    expect(days[2]?.reason).toBe('Soil water unknown for Front lawn: no water on a guess');
  });

  it('keeps unknown rain and temperatures unknown, zero as zero', () => {
    expect(days[1]).toMatchObject({
      rainIn: null,
      rainPct: null,
      tempMaxF: null,
      tempMinF: null,
      rainEvidenceIncomplete: true,
    });
    expect(days[2]).toMatchObject({ rainIn: 0, rainPct: 5 });
  });

  it('takes ET0 from the forecast only when reported, else the engine computation', () => {
    expect(days[0]).toMatchObject({ et0Source: 'forecast' });
    expect(days[0]?.et0Mm).toBeCloseTo(5.08, 5);
    // et0_in 0 without et0_reported is not evidence: the engine's value is used.
    expect(days[1]).toMatchObject({ et0Mm: 2.7, et0Source: 'computed' });
    // A reported zero is a real zero.
    expect(days[2]).toMatchObject({ et0Mm: 0, et0Source: 'forecast' });
  });

  it('marks a day without a plan unknown', () => {
    const only = sevenDays(snapshot({ seven_day_verdicts: s.seven_day_verdicts }), null);
    expect(only[1]).toMatchObject({ kind: 'unknown', plannedSeconds: null });
  });

  it('labels dates by their own weekday', () => {
    expect(dayLabel('2026-11-23', 3)).toMatch(/^Mon\w* 23$/);
    expect(dayLabel('bad', 4)).toBe('bad');
  });
});
