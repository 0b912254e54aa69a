import {
  accuracyDays,
  accuracySentence,
  appliedWater,
  changeReason,
  reasonLabel,
  runTexts,
  sortChanges,
  exportDays,
  filterDaily,
  filterRuns,
  outcomeLabel,
  percent,
  sourceLabel,
  statusOptions,
  zoneOptions,
  type AccuracyRow,
  type DailyDecision,
  type RunRecord,
} from '../../web/app/pages/history/history-model';

function run(overrides: Partial<RunRecord>): RunRecord {
  return {
    session_id: null,
    zone: 'front_lawn',
    start_epoch: 1_700_000_000,
    duration_s: 600,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    controller_id: 'c1',
    applied_mm: 5.2,
    volume_gal: 40,
    note: null,
    cycle_index: null,
    cycle_count: null,
    ...overrides,
  };
}

describe('appliedWater', () => {
  it('reports a measured amount', () => {
    expect(appliedWater(run({}))).toEqual({ kind: 'amount', mm: 5.2, gal: 40 });
    expect(appliedWater(run({ volume_gal: null }))).toEqual({ kind: 'amount', mm: 5.2, gal: null });
  });

  it('never turns a missing measurement into 0', () => {
    expect(appliedWater(run({ applied_mm: null, volume_gal: null }))).toEqual({
      kind: 'unknown',
      why: 'not measured',
    });
    expect(appliedWater(run({ applied_mm: null, volume_gal: null, status: 'running' }))).toEqual({
      kind: 'unknown',
      why: 'still running',
    });
    expect(appliedWater(run({ applied_mm: null, volume_gal: null, status: 'aborted' })).kind).toBe('unknown');
  });

  it('does not count dry-run rows or skip events as applied water, whatever they carry', () => {
    expect(appliedWater(run({ source: 'dry_run' }))).toEqual({ kind: 'not_water', why: 'dry_run' });
    expect(appliedWater(run({ source: 'dry_run:manual', applied_mm: 3 }))).toEqual({
      kind: 'not_water',
      why: 'dry_run',
    });
    expect(appliedWater(run({ source: 'smart_morning', duration_s: 0 }))).toEqual({
      kind: 'not_water',
      why: 'skip',
    });
    expect(appliedWater(run({ skip_reason: 'rain_3day' }))).toEqual({ kind: 'not_water', why: 'skip' });
  });

  it("names the demo's simulated water as such, never as applied water", () => {
    expect(appliedWater(run({ source: 'dry_run', evidence: 'simulated', applied_mm: null }))).toEqual({
      kind: 'not_water',
      why: 'simulated',
    });
    expect(appliedWater(run({ source: 'dry_run', evidence: 'commanded' }))).toEqual({
      kind: 'not_water',
      why: 'dry_run',
    });
  });
});

describe('filters', () => {
  const runs = [
    run({ zone: 'a', start_epoch: 10, status: 'completed' }),
    run({ zone: 'b', start_epoch: 30, status: 'aborted' }),
    run({ zone: 'a', start_epoch: 20, status: 'aborted' }),
  ];

  it('filters runs by zone and status, newest first', () => {
    expect(filterRuns(runs, { zone: null, status: null }).map((r) => r.start_epoch)).toEqual([30, 20, 10]);
    expect(filterRuns(runs, { zone: 'a', status: null }).map((r) => r.start_epoch)).toEqual([20, 10]);
    expect(filterRuns(runs, { zone: 'a', status: 'aborted' }).map((r) => r.start_epoch)).toEqual([20]);
    expect(filterRuns(runs, { zone: 'c', status: null })).toEqual([]);
  });

  it('offers the known statuses and any other the rows carry', () => {
    expect(statusOptions([])).toEqual(['completed', 'running', 'intended', 'aborted', 'skipped']);
    expect(statusOptions([run({ status: 'weird' })])).toContain('weird');
  });

  it('filters daily decisions to one zone and drops days without it, newest first', () => {
    const zone = (slug: string) => ({
      zone: slug,
      name: slug.toUpperCase(),
      reason_code: 'not_due',
      reason: 'r',
      water_need: 'low',
      planned_seconds: 0,
    });
    const daily: DailyDecision[] = [
      { date_local: '2026-11-20', epoch: 1, kind: 'water', zones: [zone('a'), zone('b')] },
      { date_local: '2026-11-21', epoch: 2, kind: 'skip', zones: [zone('b')] },
      { date_local: '2026-11-21', epoch: 3, kind: 'paused', zones: [zone('a')] },
    ];
    expect(filterDaily(daily, null).map((d) => d.epoch)).toEqual([3, 2, 1]);
    const onlyA = filterDaily(daily, 'a');
    expect(onlyA.map((d) => d.epoch)).toEqual([3, 1]);
    expect(onlyA[1]?.zones.map((z) => z.zone)).toEqual(['a']);
    expect(daily[0]?.zones).toHaveLength(2);
  });

  it('lists configured zones first, then slugs only the history names', () => {
    const zones = zoneOptions(
      [{ slug: 'a', name: 'Lawn A' }],
      [run({ zone: 'gone' })],
      [
        {
          date_local: 'd',
          epoch: 1,
          kind: 'skip',
          zones: [
            { zone: 'a', name: 'A', reason_code: '', reason: '', water_need: '', planned_seconds: 0 },
            { zone: 'old', name: 'Old bed', reason_code: '', reason: '', water_need: '', planned_seconds: 0 },
          ],
        },
      ],
    );
    expect(zones).toEqual([
      { slug: 'a', name: 'Lawn A' },
      { slug: 'old', name: 'Old bed' },
      { slug: 'gone', name: 'gone' },
    ]);
  });
});

describe('words for codes', () => {
  it('names run sources', () => {
    expect(sourceLabel('manual')).toBe('Manual');
    expect(sourceLabel('dry_run:manual')).toBe('Dry run (manual)');
    expect(sourceLabel('smart_morning')).toBe('Skip marker');
    expect(sourceLabel('something_new')).toBe('something_new');
  });

  it('reads a verdict change reason, old and new shapes', () => {
    expect(changeReason({ reason_code: 'rain_3day' })).toEqual({ code: 'rain_3day', text: '' });
    expect(
      changeReason({ reason_code: 'paused', reason: 'Irrigation is paused.', deciding: 'controls' }),
    ).toEqual({ code: 'paused', text: 'Irrigation is paused.' });
    expect(changeReason('free text')).toEqual({ code: 'free text', text: '' });
    expect(changeReason({ reason_code: null })).toEqual({ code: '', text: '' });
    expect(changeReason(null)).toEqual({ code: '', text: '' });
    expect(changeReason({ a: 1 })).toEqual({ code: '', text: '{"a":1}' });
  });

  it('names what caused a verdict in words: controls, rules, the model', () => {
    expect(reasonLabel('paused')).toBe('Paused');
    expect(reasonLabel('global_override_run')).toBe('Override: always water');
    expect(reasonLabel('rain_3day')).toBe('Heavy rain in the next 3 days');
    expect(reasonLabel('something_new')).toBe('Something new');
  });
});

describe('windows', () => {
  it('maps the day choice onto the export and accuracy limits', () => {
    expect(exportDays(0)).toBe(3650);
    expect(exportDays(30)).toBe(30);
    expect(exportDays(99999)).toBe(3650);
    expect(accuracyDays(0)).toBe(365);
    expect(accuracyDays(7)).toBe(7);
    expect(accuracyDays(400)).toBe(365);
  });
});

describe('accuracy', () => {
  it('says the tally as a sentence with the percentage', () => {
    expect(
      accuracySentence({
        days: 30,
        scored_days: 8,
        matched_days: 6,
        missed_days: 1,
        unneeded_skip_days: 1,
        unscored_days: 22,
        matched_pct: 75,
      }),
    ).toBe(
      'Of 8 days that could be scored, 6 matched the rain that fell (75%): 1 day watered before rain, 1 day skipped for rain that did not come.',
    );
    expect(
      accuracySentence({
        days: 30,
        scored_days: 0,
        matched_days: 0,
        missed_days: 0,
        unneeded_skip_days: 0,
        unscored_days: 30,
        matched_pct: null,
      }),
    ).toMatch(/^No day of the last 30 could be scored yet/);
    expect(percent(66.7)).toBe('66.7%');
    expect(percent(null)).toBe('—');
  });

  it('labels outcomes, giving the reason a day was not scored', () => {
    const row = (outcome: string, unscored_reason: string | null): AccuracyRow => ({
      date_local: '2026-11-20',
      complete: true,
      morning_epoch: 0,
      verdict: 'skip',
      reason_code: 'rain_3day',
      rain_observed_in: null,
      rain_evidence: 'none',
      skipped_for_rain: true,
      outcome,
      unscored_reason,
    });
    expect(outcomeLabel(row('matched', null))).toBe('Matched');
    expect(outcomeLabel(row('unneeded_skip', null))).toBe('Unneeded skip: no rain came');
    expect(outcomeLabel(row('unscored', 'rain_unknown'))).toBe('Not scored: rain unknown');
    expect(outcomeLabel(row('unscored', 'reactive_skip'))).toBe(
      'Not scored: skipped for rain already falling',
    );
  });
});

describe('sortChanges', () => {
  it('lists the newest first, and of two changes in one second the later recorded first', () => {
    // The server's order: oldest first, by epoch then as recorded.
    const server = [
      { epoch: 100, verdict: 'skip', previous_verdict: null, reason: 'boot' },
      { epoch: 200, verdict: 'paused', previous_verdict: 'skip', reason: 'pause 1' },
      { epoch: 300, verdict: 'skip', previous_verdict: 'paused', reason: 'cleared' },
      { epoch: 300, verdict: 'paused', previous_verdict: 'skip', reason: 'pause 2' },
    ];
    expect(sortChanges(server).map((c) => c.reason)).toEqual(['pause 2', 'cleared', 'pause 1', 'boot']);
  });
});

describe('runTexts', () => {
  it('reads a skip reason and a note written in imperial in metric, and leaves them alone in imperial', () => {
    const row = run({
      skip_reason: 'rain_now: Raining now: 0.449 in/hr is at or above the 0.01 in/hr threshold.',
      note: 'Cut short: 0.5 in applied.',
    });
    const metric = runTexts(row, 'metric');
    expect(metric.skipped).not.toMatch(/in\/hr|\d in\b/);
    expect(metric.skipped).toMatch(/11\.4 mm\/h/);
    expect(metric.note).toMatch(/mm/);
    expect(runTexts(row, 'imperial')).toEqual({ skipped: row.skip_reason, note: row.note });
  });

  it('keeps a missing reason and note missing', () => {
    expect(runTexts(run({ skip_reason: null, note: null }), 'metric')).toEqual({ skipped: null, note: null });
  });
});
