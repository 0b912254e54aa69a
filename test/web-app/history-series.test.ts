import {
  appliedByDate,
  appliedLabel,
  buildZoneDays,
  dateEpoch,
  dateRange,
  isWateringEvidence,
  localDate,
  runSourceLabel,
} from '../../web/app/pages/zone/history-series';
import type { HistoryWindow, RunRecord, TraceZone } from '../../web/app/pages/zones/irrigation-types';

const NOON_UTC = Date.UTC(2026, 10, 20, 12) / 1000; // 2026-11-20 12:00 UTC

function run(over: Partial<RunRecord>): RunRecord {
  return {
    zone: 'front_lawn',
    start_epoch: NOON_UTC,
    duration_s: 600,
    skip_reason: null,
    source: 'manual',
    status: 'completed',
    applied_mm: 2,
    ...over,
  };
}

describe('dates', () => {
  it('formats local dates in the service time zone', () => {
    expect(localDate(Date.UTC(2026, 10, 21, 3) / 1000, 'UTC')).toBe('2026-11-21');
    expect(localDate(Date.UTC(2026, 10, 21, 3) / 1000, 'America/New_York')).toBe('2026-11-20');
    // An unknown zone falls back to the runtime's zone instead of throwing.
    expect(localDate(0, 'Not/AZone')).toMatch(/^19(69|70)-/);
  });

  it('lists the dates ending today, across a month end', () => {
    expect(dateRange('2026-12-02', 4)).toEqual(['2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02']);
    expect(dateRange('junk', 3)).toEqual([]);
    expect(dateEpoch('2026-11-20')).toBe(NOON_UTC);
  });
});

describe('applied water', () => {
  it('counts only completed watering evidence', () => {
    expect(isWateringEvidence(run({}))).toBe(true);
    expect(isWateringEvidence(run({ source: 'manual:ha' }))).toBe(true);
    expect(isWateringEvidence(run({ source: 'ha_refresher' }))).toBe(true);
    expect(isWateringEvidence(run({ source: 'dry_run:manual' }))).toBe(false);
    expect(isWateringEvidence(run({ source: 'smart_morning', skip_reason: 'rain' }))).toBe(false);
    expect(isWateringEvidence(run({ status: 'aborted' }))).toBe(false);
    expect(isWateringEvidence(run({ status: 'skipped', skip_reason: 'dispatch_failed: x' }))).toBe(false);
  });

  it('counts a manual request and its observed hardware row once (union of intervals)', () => {
    const applied = appliedByDate(
      [
        run({ source: 'manual', start_epoch: NOON_UTC, duration_s: 600, applied_mm: 2 }),
        run({ source: 'ha_refresher', start_epoch: NOON_UTC + 5, duration_s: 600, applied_mm: 2 }),
        run({ source: 'dry_run:manual', start_epoch: NOON_UTC + 3600, duration_s: 600, applied_mm: null }),
        run({ zone: 'other', applied_mm: 50 }),
      ],
      'front_lawn',
      'UTC',
    );
    // 605 s of open valve at 2 mm per 600 s.
    expect(applied.get('2026-11-20')).toBeCloseTo((605 * 2) / 600, 10);
    expect(applied.size).toBe(1);
  });

  it('adds separate runs of a day and keeps an unknown depth unknown', () => {
    const applied = appliedByDate(
      [
        run({ start_epoch: NOON_UTC, duration_s: 300, applied_mm: 1 }),
        run({ start_epoch: NOON_UTC + 7200, duration_s: 300, applied_mm: 1 }),
        run({ start_epoch: NOON_UTC + 86_400, duration_s: 300, applied_mm: null }),
      ],
      'front_lawn',
      'UTC',
    );
    expect(applied.get('2026-11-20')).toBeCloseTo(2, 10);
    expect(applied.get('2026-11-21')).toBeNull();
  });
});

describe('buildZoneDays', () => {
  const history: HistoryWindow = {
    from_epoch: Date.UTC(2026, 10, 19, 0) / 1000,
    to_epoch: Date.UTC(2026, 10, 22) / 1000,
    runs: [run({}), run({ source: 'dry_run:manual', status: 'aborted', applied_mm: null })],
    daily: [],
  };
  const trace: TraceZone = {
    steps: [
      {
        date_local: '2026-11-19',
        kind: 'past',
        et0_mm: 3,
        kc: 0.5,
        etc_mm: 1.5,
        rain_mm: null,
        rain_credited_mm: null,
        net_irrigation_mm: 0,
        depletion_mm: null,
        depletion_range_mm: [1, 4],
      },
      {
        date_local: '2026-11-20',
        kind: 'past',
        et0_mm: 3,
        kc: 0.5,
        etc_mm: 1.5,
        rain_mm: 0,
        rain_credited_mm: 0,
        net_irrigation_mm: 2,
        depletion_mm: 2.5,
        depletion_range_mm: null,
      },
      {
        date_local: '2026-11-21',
        kind: 'projected',
        et0_mm: 3,
        kc: 0.5,
        etc_mm: 1.5,
        rain_mm: 6,
        rain_credited_mm: 6,
        net_irrigation_mm: 0,
        depletion_mm: 0,
        depletion_range_mm: null,
      },
      {
        date_local: '2026-11-22',
        kind: 'projected',
        et0_mm: 3,
        kc: 0.5,
        etc_mm: 1.5,
        rain_mm: 9,
        rain_credited_mm: 9,
        net_irrigation_mm: 0,
        depletion_mm: 1.5,
        depletion_range_mm: null,
      },
    ],
  };
  const days = buildZoneDays(history, trace, 'front_lawn', '2026-11-21', 'UTC', 4);

  it('covers the window ending today with one x per date', () => {
    expect(days.dates).toEqual(['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21']);
    expect(days.x).toEqual(days.dates.map(dateEpoch));
  });

  it('takes depletion and rain from the model’s looked-back steps, never from projected ones', () => {
    expect(days.depletionMm).toEqual([null, null, 2.5, null]);
    expect(days.depletionLowMm).toEqual([null, 1, null, null]);
    expect(days.depletionHighMm).toEqual([null, 4, null, null]);
    // Today's step is a forecast to the day's end: its rain is not history.
    expect(days.rainMm).toEqual([null, null, 0, null]);
    expect(days.depletionDays).toBe(2);
    expect(days.rainDays).toBe(1);
  });

  it("uses the zone's current depletion for today", () => {
    const withNow = buildZoneDays(history, trace, 'front_lawn', '2026-11-21', 'UTC', 4, {
      exact: null,
      range: [3, 7],
    });
    expect(withNow.depletionLowMm[3]).toBe(3);
    expect(withNow.depletionHighMm[3]).toBe(7);
    expect(withNow.depletionMm[3]).toBeNull();
    const exact = buildZoneDays(history, trace, 'front_lawn', '2026-11-21', 'UTC', 4, {
      exact: 1.2,
      range: null,
    });
    expect(exact.depletionMm[3]).toBe(1.2);
  });

  it('has applied water inside the history window only, dry runs not counted', () => {
    expect(days.appliedMm).toEqual([null, 0, 2, 0]);
    expect(days.dryRuns).toBe(1);
  });

  it("counts the demo's simulated runs apart: no applied water, no pretend dry run", () => {
    const demo = buildZoneDays(
      {
        ...history,
        runs: [
          run({ source: 'dry_run', evidence: 'simulated', status: 'completed', applied_mm: null }),
          run({ source: 'dry_run', evidence: 'commanded', status: 'completed', applied_mm: null }),
        ],
      },
      null,
      'front_lawn',
      '2026-11-21',
      'UTC',
      4,
    );
    expect(demo.simulatedRuns).toBe(1);
    expect(demo.dryRuns).toBe(1);
    expect(demo.appliedMm).toEqual([null, 0, 0, 0]);
  });

  it('is all unknown without history', () => {
    const bare = buildZoneDays(null, null, 'front_lawn', '2026-11-21', 'UTC', 2);
    expect(bare).toMatchObject({
      appliedMm: [null, null],
      rainMm: [null, null],
      depletionMm: [null, null],
      dryRuns: 0,
    });
  });
});

describe('run record labels', () => {
  it('names sources', () => {
    expect(runSourceLabel('dry_run:manual')).toBe('Dry run (manual)');
    expect(runSourceLabel('manual')).toBe('Manual');
    expect(runSourceLabel('ha_refresher')).toBe('Schedule / observed');
    expect(runSourceLabel('smart_morning')).toBe('Skip marker');
    expect(runSourceLabel(undefined)).toBe('unknown');
  });

  it('says why a row holds no applied water, and unknown when the depth is unknown', () => {
    const depth = (mm: number) => `${mm} mm`;
    expect(appliedLabel(run({}), depth)).toBe('2 mm');
    expect(appliedLabel(run({ source: 'dry_run:manual', applied_mm: null }), depth)).toBe('none (dry run)');
    expect(appliedLabel(run({ source: 'dry_run', evidence: 'simulated', applied_mm: null }), depth)).toBe(
      'none: simulated (demo yard)',
    );
    expect(appliedLabel(run({ status: 'skipped', skip_reason: 'rain' }), depth)).toBe('none (skipped)');
    expect(appliedLabel(run({ applied_mm: null }), depth)).toBeNull();
  });
});
