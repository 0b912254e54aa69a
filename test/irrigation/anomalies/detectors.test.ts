import fs from 'node:fs';
import path from 'node:path';
import type { AnomalyEvidence } from '../../../server/src/irrigation/anomalies/anomaly';
import { DETECTORS } from '../../../server/src/irrigation/anomalies/detectors/index';
import { addDays, cleanEvidence, gaugeWeek, localEpoch, NOW, recordedClimate, run, TODAY } from './evidence';

/**
 * Each anomaly detector fires on its evidence and stays quiet on clean data.
 * Every test starts from the same clean evidence and breaks one thing.
 */

function detect(evidence: AnomalyEvidence) {
  return DETECTORS.flatMap((d) => d.detect(evidence));
}

function only(evidence: AnomalyEvidence, type: string) {
  const found = detect(evidence);
  expect(found.map((a) => a.type)).toEqual([type]);
  return found[0] as NonNullable<(typeof found)[0]>;
}

describe('anomaly detectors', () => {
  it('find nothing in clean evidence', () => {
    expect(detect(cleanEvidence())).toEqual([]);
  });

  it('every detector has a documented, unique type', () => {
    const types = DETECTORS.map((d) => d.type);
    expect(new Set(types).size).toBe(types.length);
    const doc = fs.readFileSync(path.join(__dirname, '../../../docs/learning.md'), 'utf8');
    for (const type of types) expect(doc).toContain(`\`${type}\``);
  });

  it('source_out_of_range: an impossible reading', () => {
    const e = cleanEvidence();
    e.readings = [...e.readings, { epoch: NOW - 600, source_id: 'station', field: 'rh_pct', value: 130 }];
    const a = only(e, 'source_out_of_range');
    expect(a).toMatchObject({ subject: 'station', severity: 'warning' });
    expect(a.evidence[0]).toContain('relative humidity (%) reading(s) outside 0..100, last 130');
    expect(a.description).toContain(a.fix);
  });

  it('source_jump: a 30 F step in five minutes', () => {
    const e = cleanEvidence();
    e.readings = e.readings.map((r) =>
      r.source_id === 'station' && r.field === 'air_temp_f' && r.epoch === NOW - 3600
        ? { ...r, value: r.value + 30 }
        : r,
    );
    const a = only(e, 'source_jump');
    expect(a.subject).toBe('station');
    expect(a.evidence).toHaveLength(2); // up, then back down
  });

  it('source_stuck: one exact pressure for seven hours; a recovered sensor is not flagged', () => {
    const e = cleanEvidence();
    const stuck = (until: number) =>
      e.readings.map((r) =>
        r.source_id === 'station' &&
        r.field === 'pressure_inhg' &&
        r.epoch >= NOW - 7 * 3600 &&
        r.epoch <= until
          ? { ...r, value: 29.87 }
          : r,
      );
    const broken = { ...e, readings: stuck(NOW) };
    expect(only(broken, 'source_stuck').evidence[0]).toContain('pressure (inHg) read exactly 29.87');
    expect(detect({ ...e, readings: stuck(NOW - 3600) })).toEqual([]);
  });

  it('source_stuck: saturated humidity in fog is not a stuck sensor', () => {
    const e = cleanEvidence();
    e.readings = e.readings.map((r) =>
      r.field === 'rh_pct' && r.epoch >= NOW - 13 * 3600 ? { ...r, value: 100 } : r,
    );
    expect(detect(e).filter((a) => a.type === 'source_stuck')).toEqual([]);
  });

  it('source_disagrees: a station reading 15 F hot against the model and the other source', () => {
    const e = cleanEvidence();
    e.readings = e.readings.map((r) =>
      r.source_id === 'station' && r.field === 'air_temp_f' && r.epoch > NOW - 6 * 3600
        ? { ...r, value: r.value + 15 }
        : r,
    );
    const a = only(e, 'source_disagrees');
    expect(a.subject).toBe('station');
    expect(a.evidence[0]).toMatch(/air temperature off by more than 10 in \d of \d hours/);
  });

  it('source_disagrees: a lone station is judged against the model', () => {
    const e = cleanEvidence();
    e.readings = e.readings
      .filter((r) => r.source_id === 'station')
      .map((r) => (r.field === 'rh_pct' ? { ...r, value: Math.min(100, r.value + 35) } : r));
    expect(only(e, 'source_disagrees').evidence[0]).toContain('humidity off by more than 25');
  });

  it('gauge_disagrees: a dry gauge through three model storms; a model source is never the gauge', () => {
    const e = cleanEvidence();
    const storms = Object.fromEntries([-6, -4, -3].map((d) => [addDays(TODAY, d), 0.9]));
    e.forecast = {
      ...e.forecast,
      past_daily: (e.forecast?.past_daily ?? []).map((d) => ({
        ...d,
        precip_sum_in: storms[d.date_local] ?? d.precip_sum_in,
      })),
    } as never;
    const a = only(e, 'gauge_disagrees');
    expect(a.subject).toBe('station');
    expect(a.evidence).toContain(`${addDays(TODAY, -6)}: gauge 0 in, model 0.9 in`);
    expect(detect({ ...e, rainReadings: gaugeWeek('open_meteo', {}) })).toEqual([]);
  });

  it('gauge_disagrees: a gauge that stopped early on a day proves nothing about it', () => {
    const e = cleanEvidence();
    const storms = Object.fromEntries([-6, -4, -3].map((d) => [addDays(TODAY, d), 0.9]));
    e.forecast = {
      ...e.forecast,
      past_daily: (e.forecast?.past_daily ?? []).map((d) => ({
        ...d,
        precip_sum_in: storms[d.date_local] ?? d.precip_sum_in,
      })),
    } as never;
    const cut = localEpoch(addDays(TODAY, -3), 20);
    e.rainReadings = e.rainReadings.filter(
      (r) => r.epoch < cut || r.epoch >= localEpoch(addDays(TODAY, -2), 0),
    );
    expect(detect(e)).toEqual([]);
  });

  it('station_offline: an enabled station offline, not a model source or a disabled one', () => {
    const e = cleanEvidence();
    e.sources = [
      { ...e.sources[0], status: 'offline', last_seen_epoch: NOW - 7200 } as never,
      { ...e.sources[1], status: 'offline' } as never,
    ];
    const a = only(e, 'station_offline');
    expect(a).toMatchObject({ subject: 'station' });
    expect(a.evidence[0]).toBe('last seen 2025-07-20 12:00');
    e.sources = [{ ...e.sources[0], enabled: false } as never];
    expect(detect(e)).toEqual([]);
  });

  it('et0_out_of_climate: ET0 beyond the sky, and ET0 near zero on a hot day', () => {
    // A new install: no recorded climate yet, the physical envelope alone.
    const e = { ...cleanEvidence(), recordEt0: [] };
    const trace = (values: Record<string, number>) => ({
      ...e.irrigation,
      decision_trace: {
        et0_days: (e.forecast?.past_daily ?? []).map((d) => ({
          date_local: d.date_local,
          et0_mm: values[d.date_local] ?? 5.2,
        })),
      },
    });
    const high = only(
      { ...e, irrigation: trace({ [addDays(TODAY, -2)]: 31 }) as never },
      'et0_out_of_climate',
    );
    expect(high.evidence[0]).toMatch(/ET0 31 mm above the \d+(\.\d)? mm the sky allows/);
    const low = only(
      { ...e, irrigation: trace({ [addDays(TODAY, -1)]: 0.3 }) as never },
      'et0_out_of_climate',
    );
    expect(low.evidence[0]).toContain("that day's temperatures give");
  });

  it("et0_out_of_climate narrows to the site's own record once it holds a month around the date", () => {
    const e = cleanEvidence();
    const withEt0 = (mm: number) =>
      ({
        ...e.irrigation,
        decision_trace: {
          et0_days: (e.forecast?.past_daily ?? []).map((d, i) => ({
            date_local: d.date_local,
            et0_mm: i === 5 ? mm : 5.2,
          })),
        },
      }) as never;
    // 14 mm is within what a July sky allows at 40.7 N, but more than twice this site's highest (6.4 mm).
    const judged = { ...e, irrigation: withEt0(14) };
    const a = only(judged, 'et0_out_of_climate');
    expect(a.evidence).toEqual([
      `${addDays(TODAY, -2)}: ET0 14 mm above the 12.8 mm the site's record allows (2 x its highest, 6.4 mm, in 25 days around the date)`,
    ]);
    // A plausible hot day (twice the record's average, under twice its highest) is quiet.
    expect(detect({ ...e, irrigation: withEt0(12) })).toEqual([]);
    // Too short a record: the physical envelope alone, and 14 mm passes it.
    expect(detect({ ...judged, recordEt0: recordedClimate(19, () => 6.4) })).toEqual([]);
    // Days of the judged week itself never make the climate.
    const own = (e.forecast?.past_daily ?? []).map((d) => ({ date_local: d.date_local, et0_mm: 1 }));
    expect(detect({ ...judged, recordEt0: [...own, ...recordedClimate(19, () => 6.4)] })).toEqual([]);
    // Last year's same weeks count as much as this year's.
    const lastYear = recordedClimate(25, () => 5).map((d) => ({
      ...d,
      date_local: `${Number(d.date_local.slice(0, 4)) - 1}${d.date_local.slice(4)}`,
    }));
    expect(only({ ...judged, recordEt0: lastYear }, 'et0_out_of_climate').evidence[0]).toContain(
      'above the 10 mm the site',
    );
    // A record far from the date (months away) is not the date's climate.
    const winter = recordedClimate(40, () => 1).map((d) => ({
      ...d,
      date_local: `2025-01-${d.date_local.slice(8)}`,
    }));
    expect(detect({ ...judged, recordEt0: winter })).toEqual([]);
  });

  it('controller_errors_repeating: three failed dispatches in a week', () => {
    const e = cleanEvidence();
    e.controllerFailures = [3, 2, 1].map((d) => ({
      controller_id: 'os1',
      epoch: localEpoch(addDays(TODAY, -d), 5),
      message: 'timeout',
    }));
    expect(only(e, 'controller_errors_repeating')).toMatchObject({ subject: 'os1' });
    expect(detect({ ...e, controllerFailures: e.controllerFailures.slice(1) })).toEqual([]);
  });

  it('zone_due_not_watered: due three days running without water; a watered or paused day breaks it', () => {
    const e = cleanEvidence();
    const decision = (date: string, code = 'forecast_unavailable') => ({
      date_local: date,
      epoch: localEpoch(date, 6),
      kind: 'hold',
      zones: [
        { zone: 'back', name: 'Back', reason_code: code, reason: '', water_need: 'due', planned_seconds: 0 },
      ],
    });
    e.decisions = [0, -1, -2].map((d) => decision(addDays(TODAY, d)));
    const a = only(e, 'zone_due_not_watered');
    expect(a.subject).toBe('back');
    expect(a.evidence).toEqual([`due ${addDays(TODAY, -2)} to ${TODAY}`, 'held by: forecast_unavailable']);
    expect(detect({ ...e, runs: [...e.runs, run('back', addDays(TODAY, -1))] })).toEqual([]);
    expect(
      detect({
        ...e,
        decisions: [decision(TODAY), decision(addDays(TODAY, -1), 'paused'), decision(addDays(TODAY, -2))],
      }),
    ).toEqual([]);
  });

  it('cap_binding_every_session: every watered session capped; dry-run sessions do not count', () => {
    const e = cleanEvidence();
    const dates = [-5, -3, -1].map((d) => addDays(TODAY, d));
    e.sessions = dates.map((date) => ({
      session_id: `sched-${date}-front`,
      zone: 'front',
      date_local: date,
      epoch: localEpoch(date, 5),
      model: 'soil',
      planned_seconds: 1200,
      uncapped_seconds: 2000,
      session_capped: true,
      max_run_minutes: 20,
    }));
    e.runs = dates.map((date) => run('front', date));
    expect(only(e, 'cap_binding_every_session').fix).toContain('above 20');
    expect(detect({ ...e, runs: dates.map((date) => run('front', date, { source: 'dry_run' })) })).toEqual(
      [],
    );
  });

  describe('cap_binding_past_raw (rule 6): the cap left the zone short in a row and past RAW', () => {
    // MP rotators in a desert summer: 60 minutes put down 7.1 mm net; the crop used more.
    const yesterday = addDays(TODAY, -1);
    function capped(needs: Record<string, number>, capNow: number | null = null): AnomalyEvidence {
      const e = cleanEvidence();
      const dates = Object.keys(needs);
      e.sessions = dates.map((date) => ({
        session_id: `sched-${date}-front`,
        zone: 'front',
        date_local: date,
        epoch: localEpoch(date, 5),
        model: 'soil',
        planned_seconds: Math.min(3600, needs[date]!),
        uncapped_seconds: needs[date]!,
        session_capped: needs[date]! > 3600,
        max_run_minutes: 60,
      }));
      e.runs = dates.map((date) => run('front', date, { duration_s: Math.min(3600, needs[date]!) }));
      e.zoneLedgers = [
        {
          zone: 'front',
          max_run_minutes: capNow,
          days: [ledgerDay(addDays(TODAY, -2), 10.4, 0, 0), ledgerDay(yesterday, 14.2, 3600, 7.1)],
        },
      ];
      return e;
    }
    function ledgerDay(date: string, closing: number, seconds: number, net: number) {
      return {
        date_local: date,
        raw_mm: 12,
        closing_range_mm: [closing, closing] as const,
        irrigation_seconds: seconds,
        irrigation_net_mm: net,
      };
    }

    it('is told the day of the second short session, with the value to raise the cap to', () => {
      const a = only(capped({ [yesterday]: 4800, [TODAY]: 5400 }), 'cap_binding_past_raw');
      expect(a).toMatchObject({ severity: 'warning', subject: 'front' });
      expect(a.fix).toBe(
        "Raise the zone's max_run_minutes to 90 (the tuning report suggests it now; apply it from the zone page).",
      );
      expect(a.evidence).toEqual([
        `${yesterday}: the day closed at 14.2 mm depletion, past RAW 12 mm`,
        `${yesterday}: planned 60 min of 80 min needed, 2.4 mm net left out (session sched-${yesterday}-front)`,
        `${TODAY}: planned 60 min of 90 min needed (session sched-${TODAY}-front)`,
      ]);
      expect(a.description).toContain(
        'The 60 min run cap left zone front short on its last 2 watered sessions',
      );
    });

    it('replaces the every-session anomaly for the same zone', () => {
      const three = capped({ [addDays(TODAY, -3)]: 4000, [yesterday]: 4800, [TODAY]: 5400 });
      expect(only(three, 'cap_binding_past_raw').subject).toBe('front');
    });

    it('stays quiet within RAW, after a session the cap did not cut, or once the cap was raised', () => {
      const withinRaw = capped({ [yesterday]: 4800, [TODAY]: 5400 });
      withinRaw.zoneLedgers[0]!.days = withinRaw.zoneLedgers[0]!.days.map((d) => ({
        ...d,
        closing_range_mm: [11, 11] as const,
      }));
      expect(detect(withinRaw)).toEqual([]);
      expect(detect(capped({ [yesterday]: 4800, [TODAY]: 3000 }))).toEqual([]);
      expect(detect(capped({ [yesterday]: 4800, [TODAY]: 5400 }, 90))).toEqual([]);
    });
  });

  it('restart_required_pending: held for six hours', () => {
    const e = cleanEvidence();
    e.irrigation = {
      ...e.irrigation,
      restart_required: true,
      restart_reasons: ['controller "os1" changed'],
    } as never;
    expect(detect({ ...e, restartPendingSince: NOW - 3600 })).toEqual([]);
    expect(only({ ...e, restartPendingSince: NOW - 6 * 3600 }, 'restart_required_pending').evidence).toEqual([
      'controller "os1" changed',
    ]);
  });

  it('flow_alarm: alarms from the flow provider, critical when it stopped the zone', () => {
    const e = cleanEvidence();
    e.flowAlarms = [
      {
        zone: 'front',
        controller_id: 'os1',
        kind: 'high',
        rate_gpm: 14,
        baseline_gpm: 6,
        stopped: true,
        epoch: NOW - 600,
      },
    ];
    expect(only(e, 'flow_alarm')).toMatchObject({ severity: 'critical', subject: 'front' });
    expect(detect({ ...e, flowAlarms: [] })).toEqual([]);
  });
});
