import type { IrrigationSnapshot, Zone } from '../../web/app/pages/zones/irrigation-types';
import {
  bucketGauge,
  depletionOf,
  lastRunText,
  overrideOf,
  plannedText,
  runAnnouncement,
  stopAnnouncement,
  zoneReason,
  zoneStateText,
  type Format,
} from '../../web/app/pages/zones/zone-model';

const fmt: Format = (q, v) => (v === null || v === undefined ? '—' : `${Number(v.toFixed(2))} ${q}`);

function zone(over: Partial<Zone> = {}): Zone {
  return {
    name: 'Front lawn',
    slug: 'front_lawn',
    running: false,
    running_known: true,
    planned_run_seconds: 0,
    bucket_mm: -3.11,
    throughput_mm_hr: 12.7,
    last_run_epoch: 0,
    math: { bucket_mm: -3.11, kc: 0.58, cap_binding: false, taw_mm: 11.25, raw_mm: 5.63 },
    ...over,
  };
}

function snapshot(over: Partial<IrrigationSnapshot> = {}): IrrigationSnapshot {
  return { last_refresh_epoch: 1, zones: [zone()], ...over };
}

describe('zoneStateText', () => {
  it('reads running together with running_known', () => {
    expect(zoneStateText({ running: true, running_known: true })).toBe('Running');
    expect(zoneStateText({ running: false, running_known: true })).toBe('Idle');
    // A fire-and-forget controller cannot say: unknown, not idle, even if a stale flag says running.
    expect(zoneStateText({ running: false, running_known: false })).toBe('Unknown');
    expect(zoneStateText({ running: true, running_known: false })).toBe('Unknown');
  });
});

describe('depletion and the bucket gauge', () => {
  it('turns a negative bucket into depletion and places it against TAW and RAW', () => {
    const d = depletionOf(zone());
    expect(d).toEqual({ exact: 3.11, range: null, taw: 11.25, raw: 5.63 });
    const g = bucketGauge(d, fmt);
    expect(g.fillPct).toBeCloseTo((3.11 / 11.25) * 100, 5);
    expect(g.markPct).toBeCloseTo((5.63 / 11.25) * 100, 5);
    expect(g.pastTrigger).toBe(false);
    expect(g.text).toBe('3.11 depth_mm dry of 11.25 depth_mm capacity · waters at 5.63 depth_mm');
  });

  it('marks the gauge past the trigger once depletion reaches it (geometry; the engine decides due)', () => {
    const g = bucketGauge(
      depletionOf(zone({ math: { bucket_mm: -6, kc: 0.5, cap_binding: false, taw_mm: 10, raw_mm: 5 } })),
      fmt,
    );
    expect(g.pastTrigger).toBe(true);
    expect(g.fillPct).toBe(60);
  });

  it('keeps an unknown bucket unknown and shows the proven range instead', () => {
    const z = zone({
      bucket_mm: null,
      math: {
        bucket_mm: null,
        kc: 0.58,
        cap_binding: false,
        depletion_range_mm: [3, 6],
        taw_mm: 24,
        raw_mm: 12,
      },
    });
    const d = depletionOf(z);
    expect(d.exact).toBeNull();
    expect(d.range).toEqual([3, 6]);
    const g = bucketGauge(d, fmt);
    expect(g.fillPct).toBeNull();
    expect(g.rangePct).toEqual([12.5, 25]);
    expect(g.pastTrigger).toBe(false); // even the driest case is below the trigger
    expect(g.text).toContain('exact value unknown');
  });

  it('says unknown when there is neither a bucket nor a range nor a capacity', () => {
    const g = bucketGauge(
      depletionOf(
        zone({
          bucket_mm: null,
          math: { bucket_mm: null, kc: 0, cap_binding: false, taw_mm: null, raw_mm: null },
        }),
      ),
      fmt,
    );
    expect(g).toMatchObject({ fillPct: null, rangePct: null, markPct: null, pastTrigger: null });
    expect(g.text).toBe('Soil water unknown (no bucket can be derived) · trigger unknown');
  });

  it('draws a completely dry zone as a full bar, not a sliver past its end', () => {
    const dry = zone({
      bucket_mm: null,
      math: {
        bucket_mm: null,
        kc: 0.5,
        cap_binding: false,
        depletion_range_mm: [11.25, 11.25],
        taw_mm: 11.25,
        raw_mm: 5.63,
      },
    });
    const inches: Format = (_q, v) => (v === null || v === undefined ? '—' : `${(v / 25.4).toFixed(2)} in`);
    const g = bucketGauge(depletionOf(dry), inches);
    expect(g).toMatchObject({ fillPct: 100, rangePct: null, pastTrigger: true });
    expect(g.text).toBe(
      'Completely dry: 0.44 in below full, all of its 0.44 in capacity · waters at 0.22 in',
    );
    expect(g.text).not.toMatch(/between/i);
  });

  it('shows a range whose ends read the same as that one value, and keeps a narrow range inside the bar', () => {
    const inches: Format = (_q, v) => (v === null || v === undefined ? '—' : `${(v / 25.4).toFixed(2)} in`);
    const near = depletionOf(
      zone({
        bucket_mm: null,
        math: {
          bucket_mm: null,
          kc: 0.5,
          cap_binding: false,
          depletion_range_mm: [6.0, 6.1],
          taw_mm: 24,
          raw_mm: 12,
        },
      }),
    );
    const collapsed = bucketGauge(near, inches);
    expect(collapsed.rangePct).toBeNull();
    expect(collapsed.text).toBe('0.24 in dry of 0.94 in capacity · waters at 0.47 in');
    const edge = bucketGauge(
      depletionOf(
        zone({
          bucket_mm: null,
          math: {
            bucket_mm: null,
            kc: 0.5,
            cap_binding: false,
            depletion_range_mm: [23, 24],
            taw_mm: 24,
            raw_mm: 12,
          },
        }),
      ),
      fmt,
    );
    const [left, right] = edge.rangePct ?? [0, 0];
    expect(right).toBeLessThanOrEqual(100);
    expect(right - left).toBeGreaterThanOrEqual(3);
  });

  it('never reports negative depletion for a surplus', () => {
    expect(depletionOf(zone({ math: { bucket_mm: 2, kc: 1, cap_binding: false } })).exact).toBe(0);
  });
});

describe('planned and last run', () => {
  it('treats 0 planned seconds as a real "none", missing as unknown', () => {
    expect(plannedText(0)).toBe('none planned');
    expect(plannedText(1261)).toBe('21 min');
    expect(plannedText(undefined)).toBe('unknown');
  });

  it('says never for epoch 0 instead of a 1970 date', () => {
    expect(lastRunText(0)).toBe('never');
    expect(lastRunText(undefined)).toBe('unknown');
    const now = 1_795_320_000_000;
    expect(lastRunText(now / 1000 - 7200, now)).toMatch(/\(2 h ago\)$/);
  });
});

describe('overrideOf', () => {
  it('reads the override the snapshot states for the zone', () => {
    expect(overrideOf(snapshot({ zones: [zone({ override: 'run' })] }), 'front_lawn')).toBe('run');
    expect(overrideOf(snapshot({ zones: [zone({ override: 'auto' })] }), 'front_lawn')).toBe('auto');
  });

  it('is unknown (null) when the snapshot does not say or the zone is not there', () => {
    expect(overrideOf(snapshot({ zones: [zone()] }), 'front_lawn')).toBeNull();
    expect(overrideOf(snapshot({ zones: [zone({ override: 'skip' })] }), 'back_beds')).toBeNull();
  });
});

describe('announcements and reasons', () => {
  it('announces runs with the server-confirmed length and clamping', () => {
    expect(runAnnouncement('Front lawn', 5, { ok: true, seconds: 300, confirm_within_s: 0 })).toBe(
      'Front lawn running for 5 min',
    );
    expect(runAnnouncement('Front lawn', 30, { seconds: 7200, clamped: true })).toBe(
      'Front lawn running for 120 min (shortened to the 2-hour limit)',
    );
    expect(runAnnouncement('Front lawn', 10, { seconds: 600, confirm_within_s: 90 })).toContain(
      'confirms within 2 min',
    );
  });

  it('says when a stop had to stop the whole controller', () => {
    expect(stopAnnouncement('Back lawn', { scope: 'zone' })).toBe('Back lawn stopped');
    expect(stopAnnouncement('Back lawn', { scope: 'device', note: 'no per-zone stop' })).toContain(
      'whole controller',
    );
  });

  it("drops the seconds suffix from a forced run's reason", () => {
    const s = snapshot({
      zone_verdicts: [
        {
          zone: 'front_lawn',
          name: 'Front lawn',
          verdict: 'water',
          reason_code: 'zone_override_run',
          reason: 'zone front_lawn is set to always run; 1261 s',
          planned_seconds: 1261,
        },
      ],
    });
    expect(zoneReason(s, 'front_lawn')).toBe('zone front_lawn is set to always run');
    expect(zoneReason(s, 'other')).toBeNull();
  });
});
