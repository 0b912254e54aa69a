import {
  appliedMessage,
  applyBody,
  splitMuted,
  valueText,
  type Recommendation,
  type ZoneEntry,
} from '../../web/app/pages/tuning/tuning-model';

const rec: Recommendation = {
  id: 'abc123',
  field: 'max_run_minutes',
  current_value: 30,
  suggested_value: 50,
  companion_fields: [],
  headline: 'Raise the run cap to 50 min',
  evidence: [],
  confidence: 'high',
};

describe('the tuning page model', () => {
  it('writes values with their unit; null is the default', () => {
    expect(valueText('max_run_minutes', 50)).toBe('50 min');
    expect(valueText('max_run_minutes', null)).toBe('default (60 min)');
    expect(valueText('sessions_per_week', 3)).toBe('3 a week');
    expect(valueText('soil_texture', 'loam')).toBe('loam');
    expect(valueText('root_depth_mm', null)).toBe('default');
  });

  it('applies the suggestion as shown, echoing the report window', () => {
    expect(applyBody('front', rec, 30)).toEqual({
      zone_slug: 'front',
      recommendation_id: 'abc123',
      field: 'max_run_minutes',
      value: 50,
      window_days: 30,
    });
  });

  it('says what changed and whether a restart is needed', () => {
    const base = { applied: true, zone: 'front', field: 'max_run_minutes', old_value: 30, new_value: 50 };
    expect(appliedMessage({ ...base, restart_required: false, restart_reasons: [] })).toBe(
      'Saved. Run cap: 30 min → 50 min; a snapshot of the previous config was kept.',
    );
    expect(
      appliedMessage({ ...base, restart_required: true, restart_reasons: ['controller "os" changed'] }),
    ).toContain('A restart is needed: controller "os" changed.');
  });

  it('splits the muted annotation off a dismissed entry only', () => {
    const entry: ZoneEntry = {
      slug: 'front',
      display_name: 'Front',
      status: 'ok',
      lines: ['Watered on 3 day(s).', 'Snoozed until 2025-08-19: Raise the run cap'],
      recommendation: null,
      dismissed: true,
      dismissed_fields: ['max_run_minutes'],
    };
    expect(splitMuted(entry)).toEqual({
      lines: ['Watered on 3 day(s).'],
      muted: 'Snoozed until 2025-08-19: Raise the run cap',
    });
    expect(splitMuted({ ...entry, dismissed: false })).toEqual({ lines: entry.lines, muted: null });
  });
});
