import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { scoreDay, tally, type DayEvidence } from '../../../server/src/irrigation/history/accuracy';
import { buildAccuracyReport } from '../../../server/src/irrigation/history/accuracy-report';
import { MERGED_SOURCE_ID } from '../../../server/src/weather/weather-service';
import { tempStore } from '../../store/temp-db';
import { dailyDecision, runRecord } from './fixtures';

/**
 * Accuracy: the morning verdict against the gauge's daily rain. Known rain
 * scores; unknown rain stays null and unscored (never a fake 0); a partial
 * gauge day proves rain but not a dry day; reactive and non-rain skips are not
 * scored; today is never scored.
 */

const TZ = 'America/New_York';
const local = (iso: string): number => DateTime.fromISO(iso, { zone: zoneFor(TZ) }).toSeconds();

function day(overrides: Partial<DayEvidence>): DayEvidence {
  return {
    date_local: '2025-06-16',
    complete: true,
    morning_epoch: 0,
    verdict: 'water',
    reason_code: 'soil_due',
    rain_observed_in: 0,
    rain_evidence: 'gauge',
    ...overrides,
  };
}

describe('scoreDay', () => {
  const score = (d: Partial<DayEvidence>) => scoreDay(day(d), 0.25);

  it('matches a forecast-rain skip followed by rain, and watering on a dry day', () => {
    expect(score({ verdict: 'skip', reason_code: 'tomorrow_rain', rain_observed_in: 0.25 })).toMatchObject({
      outcome: 'matched',
      skipped_for_rain: true,
      unscored_reason: null,
    });
    expect(score({ verdict: 'water', rain_observed_in: 0.1 }).outcome).toBe('matched');
  });

  it('calls a dry rain skip unneeded and watering before real rain missed', () => {
    expect(
      score({ verdict: 'skip', reason_code: 'rain_today_forecast', rain_observed_in: 0.24 }).outcome,
    ).toBe('unneeded_skip');
    expect(score({ verdict: 'water', rain_observed_in: 1.2 }).outcome).toBe('missed');
  });

  it('leaves a skip with no rain evidence unscored, with its rain null', () => {
    const row = score({
      verdict: 'skip',
      reason_code: 'rain_3day',
      rain_observed_in: null,
      rain_evidence: 'none',
    });
    expect(row).toMatchObject({
      outcome: 'unscored',
      unscored_reason: 'rain_unknown',
      rain_observed_in: null,
    });
  });

  it('takes a partial gauge day as proof of rain, never of a dry day', () => {
    expect(score({ verdict: 'water', rain_observed_in: 0.5, rain_evidence: 'gauge_partial' }).outcome).toBe(
      'missed',
    );
    expect(score({ verdict: 'water', rain_observed_in: 0.1, rain_evidence: 'gauge_partial' })).toMatchObject({
      outcome: 'unscored',
      unscored_reason: 'rain_unknown',
    });
  });

  it('does not score reactive skips, other verdicts, missing verdicts or today', () => {
    expect(score({ verdict: 'skip', reason_code: 'rain_now', rain_observed_in: 1 })).toMatchObject({
      outcome: 'unscored',
      unscored_reason: 'reactive_skip',
      skipped_for_rain: true,
    });
    expect(score({ verdict: 'skip', reason_code: 'wind_now' })).toMatchObject({
      unscored_reason: 'not_a_rain_decision',
      skipped_for_rain: false,
    });
    expect(score({ verdict: 'paused', reason_code: 'paused' }).unscored_reason).toBe('not_a_rain_decision');
    expect(score({ verdict: null, reason_code: null }).unscored_reason).toBe('no_verdict');
    expect(score({ complete: false, rain_observed_in: 1 }).unscored_reason).toBe('day_in_progress');
  });

  it('tallies scored and matched days', () => {
    const rows = [
      score({ verdict: 'water', rain_observed_in: 0 }),
      score({ verdict: 'water', rain_observed_in: 2 }),
      score({ verdict: 'skip', reason_code: 'rain_next_4h', rain_observed_in: 0.3 }),
      score({ verdict: 'water', rain_observed_in: null, rain_evidence: 'none' }),
    ];
    expect(tally(rows)).toEqual({
      days: 4,
      scored_days: 3,
      matched_days: 2,
      missed_days: 1,
      unneeded_skip_days: 0,
      unscored_days: 1,
      matched_pct: 66.7,
    });
    expect(tally([score({ complete: false })]).matched_pct).toBeNull();
  });
});

describe('buildAccuracyReport', () => {
  const db = tempStore();

  function transition(iso: string, verdict: string, reason_code: string): void {
    db.store().decisions.insertTransition({
      epoch: local(iso),
      verdict,
      previous_verdict: null,
      reason: { reason_code },
    });
  }

  function gauge(readings: [string, number][]): void {
    db.store().readings.insertMany(
      readings.map(([iso, value]) => ({
        epoch: local(iso),
        source_id: MERGED_SOURCE_ID,
        field: 'rain_in_today',
        value,
      })),
    );
  }

  function seed(): void {
    const store = db.store();
    for (const date of ['2025-06-15', '2025-06-16', '2025-06-17', '2025-06-18', '2025-06-19', '2025-06-20']) {
      store.decisions.upsertDaily(dailyDecision({ date_local: date, epoch: local(`${date}T05:00`) }));
    }
    transition('2025-06-13T10:00', 'water', 'soil_due');
    transition('2025-06-15T05:00', 'skip', 'wind_now');
    transition('2025-06-16T05:00', 'skip', 'tomorrow_rain');
    transition('2025-06-17T05:00', 'skip', 'rain_today_forecast');
    transition('2025-06-18T05:00', 'skip', 'rain_3day');
    transition('2025-06-19T04:00', 'water', 'soil_due');
    transition('2025-06-19T05:30', 'skip', 'rain_now');
    transition('2025-06-20T05:00', 'water', 'soil_due');
    // 06-19's scheduled run went out at 05:15, before the 05:30 change: its verdict is water.
    store.runs.insert(runRecord({ source: 'smart_morning', start_epoch: local('2025-06-19T05:15') }));
    // A scheduled row after noon is not the morning run.
    store.runs.insert(runRecord({ source: 'ha_refresher', start_epoch: local('2025-06-17T18:00') }));
    gauge([
      ['2025-06-14T23:30', 0.9],
      ['2025-06-16T00:10', 0],
      ['2025-06-16T12:00', 0.3],
      ['2025-06-16T23:40', 0.6],
      ['2025-06-17T00:10', 0],
      ['2025-06-17T23:50', 0.02],
      ['2025-06-19T00:10', 0],
      ['2025-06-19T14:00', 0.4],
      ['2025-06-20T09:00', 0.7],
    ]);
  }

  it('pairs each local morning verdict with that day gauge rain', () => {
    seed();
    const report = buildAccuracyReport(db.store(), {
      nowEpoch: local('2025-06-20T15:00'),
      days: 7,
      timezone: TZ,
      rainThresholdIn: 0.25,
    });
    expect(report.from_epoch).toBe(local('2025-06-14T00:00'));
    expect(report.to_epoch).toBe(local('2025-06-20T15:00'));
    expect(
      report.rows.map((r) => [r.date_local, r.verdict, r.rain_observed_in, r.outcome, r.unscored_reason]),
    ).toEqual([
      ['2025-06-14', null, 0.9, 'unscored', 'no_verdict'],
      ['2025-06-15', 'skip', null, 'unscored', 'not_a_rain_decision'],
      ['2025-06-16', 'skip', 0.6, 'matched', null],
      ['2025-06-17', 'skip', 0.02, 'unneeded_skip', null],
      ['2025-06-18', 'skip', null, 'unscored', 'rain_unknown'],
      ['2025-06-19', 'water', 0.4, 'missed', null],
      ['2025-06-20', 'water', 0.7, 'unscored', 'day_in_progress'],
    ]);
    const byDate = new Map(report.rows.map((r) => [r.date_local, r]));
    expect(byDate.get('2025-06-19')?.morning_epoch).toBe(local('2025-06-19T05:15'));
    expect(byDate.get('2025-06-19')?.rain_evidence).toBe('gauge_partial');
    expect(byDate.get('2025-06-17')?.morning_epoch).toBe(local('2025-06-17T06:00'));
    expect(byDate.get('2025-06-18')?.rain_evidence).toBe('none');
    expect(report.tally).toMatchObject({
      days: 7,
      scored_days: 3,
      matched_days: 1,
      missed_days: 1,
      unneeded_skip_days: 1,
    });
    expect(report.tally.matched_pct).toBe(33.3);
  });

  it('uses local days across a DST change (23-hour day)', () => {
    gauge([['2025-03-09T23:30', 0.1]]);
    const report = buildAccuracyReport(db.store(), {
      nowEpoch: local('2025-03-10T12:00'),
      days: 2,
      timezone: TZ,
      rainThresholdIn: 0.25,
    });
    expect(report.rows.map((r) => r.date_local)).toEqual(['2025-03-09', '2025-03-10']);
    expect(report.rows[0]?.morning_epoch).toBe(local('2025-03-09T06:00'));
    // 23:30 is in the last hour of the 23-hour day: a complete total, not a partial one.
    expect(report.rows[0]).toMatchObject({ rain_observed_in: 0.1, rain_evidence: 'gauge' });
  });
});
