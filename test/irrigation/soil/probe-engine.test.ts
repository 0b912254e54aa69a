import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import type { EngineOutput } from '../../../server/src/irrigation/engine/types';
import type { ProbeCalibration } from '../../../server/src/irrigation/soil/probe-calibration';
import { probeEvidence, type ProbeEvidence } from '../../../server/src/irrigation/soil/probe-evidence';
import type { SoilForecastEntry } from '../../../server/src/irrigation/soil/probe-forecast';
import { PROBE_HOLD_CODE } from '../../../server/src/irrigation/soil/probe-hold';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { dateAt, day, demo, forecast, HOUR, input, NOW, pastDays } from '../engine/fixtures';

/**
 * The engine with a bound soil probe: `soil_forecasts[]`, the wet hold and
 * the dry disagreement, from the probe evidence the reader gathers.
 */

const SENSOR = 'source:gw1:soil_moisture_pct:1';
const OFFLINE_S = 180 * 60;

function bound(thresholds: { target_min_pct_soil?: number; saturation_pct_soil?: number } = {}) {
  return demo((raw) => {
    const zones = raw['zones'] as Record<string, Record<string, unknown>>;
    Object.assign(zones['front_lawn'] as Record<string, unknown>, { soil_sensor_id: SENSOR, ...thresholds });
  });
}

function probe(raw: number, calibration: ProbeCalibration | null = null, ageS = 600): ProbeEvidence {
  return probeEvidence(SENSOR, [{ epoch: NOW - ageS, value: raw }], calibration, NOW, OFFLINE_S);
}

function run(config: ReturnType<typeof bound>, evidence: ProbeEvidence, extra = {}): EngineOutput {
  return computeIrrigation(input({ config, probes: new Map([['front_lawn', evidence]]), ...extra }));
}

function forecastOf(out: EngineOutput, slug = 'front_lawn'): SoilForecastEntry {
  return out.snapshot.soil_forecasts.find((f) => f['zone'] === slug) as unknown as SoilForecastEntry;
}

function today(out: EngineOutput, slug = 'front_lawn') {
  return out.snapshot.water_plan[0]?.zones.find((z) => z.zone === slug);
}

const CAL: ProbeCalibration = {
  dry_raw_pct: 10,
  wet_raw_pct: 50,
  dry_origin: 'owner',
  wet_origin: 'owner',
  updated_epoch: NOW - 86400,
};

describe('soil_forecasts[] with a bound probe', () => {
  it('an uncalibrated probe reading 33 % keeps the relative reading and has no curve', () => {
    const out = run(bound(), probe(33));
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
    expect(forecastOf(out)).toMatchObject({
      zone: 'front_lawn',
      status: 'uncalibrated',
      probe_configured: true,
      sensor_id: SENSOR,
      raw_pct: 33,
      reading_pct: 33,
      reading_epoch: NOW - 600,
      depletion_mm: null,
      curve: null,
    });
    expect(forecastOf(out, 'back_lawn')).toMatchObject({
      status: 'no_probe',
      reading_pct: null,
      curve: null,
    });
  });

  it('a calibrated probe: the scaled reading, the ledger depletion beside it and a forward curve from the plan', () => {
    const out = run(bound(), probe(33, CAL));
    const f = forecastOf(out);
    // 100 x (33 - 10) / (50 - 10) = 57.5
    expect(f.status).toBe('calibrated');
    expect(f.reading_pct).toBe(57.5);
    const plan = out.snapshot.water_plan.map((d) => d.zones.find((z) => z.zone === 'front_lawn'));
    const taw = plan[0]?.capacity_mm as number;
    expect(f.probe_depletion_mm).toBeCloseTo((taw * 42.5) / 100, 1);
    // The demo's dry week leaves the ledger a range: it is shown as one, never as a made-up number.
    expect(f.depletion_mm === null ? f.depletion_range_mm : f.depletion_mm).not.toBeNull();
    expect(f.curve).toHaveLength(7);
    f.curve?.forEach((point, d) => {
      expect(point.date_local).toBe(dateAt(d));
      expect(point.depletion_mm).toBe(plan[d]?.depletion_mm ?? null);
      if (point.depletion_mm !== null)
        expect(point.reading_pct).toBeCloseTo((100 * (taw - point.depletion_mm)) / taw, 1);
      else expect(point.reading_pct).toBeNull();
    });
  });

  it('a reading is clamped to 0..100 once calibrated', () => {
    expect(forecastOf(run(bound(), probe(60, CAL))).reading_pct).toBe(100);
    expect(forecastOf(run(bound(), probe(5, CAL))).reading_pct).toBe(0);
  });
});

describe('probe holds', () => {
  const config = bound({ saturation_pct_soil: 40, target_min_pct_soil: 20 });

  it('a probe at or above saturation holds the zone with its own reason code and 0 s', () => {
    const out = run(config, probe(40));
    const plan = today(out);
    expect(plan?.reason_code).toBe(PROBE_HOLD_CODE);
    expect(plan?.planned_seconds).toBe(0);
    expect(plan?.reason).toContain('40 %');
    expect(out.snapshot.skip_check.soil_probe_holds).toEqual({ front_lawn: plan?.reason });
    expect(out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.planned_run_seconds).toBe(0);
    expect(forecastOf(out).hold).toBe(plan?.reason);
    // Other zones are not held: the demo's dry week waters them.
    expect(today(out, 'back_lawn')?.planned_seconds).toBeGreaterThan(0);
  });

  it("holds ahead of the forecast policy: a zone waiting on the rain bet is held under the probe's code", () => {
    // As policy's rule 2 (uncertainty.test.ts): proven full yesterday, 0.2 in at 90 % today.
    const past = pastDays(7).map((d, i) => (i === 6 ? { ...d, precip_sum_in: 2 } : d));
    const daily = Array.from({ length: 8 }, (_, i) =>
      day(i, i === 0 ? { precip_sum_in: 0.2, precip_probability_max: 90 } : {}),
    );
    const waiting = forecast({ past_daily: past, daily });
    expect(today(run(config, probe(39), { forecast: waiting }))?.reason_code).toBe('forecast_rain_expected');
    const held = run(config, probe(40), { forecast: waiting });
    expect(today(held)?.reason_code).toBe(PROBE_HOLD_CODE);
    expect(today(held)?.planned_seconds).toBe(0);
  });

  it('clears at the first recompute after the reading falls below', () => {
    const out = run(config, probe(39));
    expect(out.snapshot.skip_check.soil_probe_holds).toEqual({});
    expect(today(out)?.reason_code).not.toBe(PROBE_HOLD_CODE);
    expect(today(out)?.planned_seconds).toBeGreaterThan(0);
  });

  it('an offline, stuck or out-of-range probe holds nothing', () => {
    const offline = probe(45, null, OFFLINE_S + 60);
    expect(offline.status).toBe('offline');
    const stuck = probeEvidence(
      SENSOR,
      Array.from({ length: 80 }, (_, h) => ({ epoch: NOW - h * HOUR, value: 45 })),
      null,
      NOW,
      OFFLINE_S,
    );
    expect(stuck.status).toBe('distrusted');
    const outOfRange = probe(140);
    expect(outOfRange.status).toBe('distrusted');
    for (const evidence of [offline, stuck, outOfRange]) {
      const out = run(config, evidence);
      expect(out.snapshot.skip_check.soil_probe_holds).toEqual({});
      expect(today(out)?.planned_seconds).toBeGreaterThan(0);
      expect(forecastOf(out).reading_pct).toBeNull();
    }
  });

  it('a dry reading is a disagreement when the ledger says not due, never a run', () => {
    // A soak today (declared state 0 mm) makes the ledger say not due.
    const soaked = {
      zones: new Map([
        [
          'front_lawn',
          {
            through: null,
            closing: null,
            rows: [],
            today_declarations: [
              {
                zone: 'front_lawn',
                date_local: dateAt(0),
                depletion_mm: 0,
                source: 'owner' as const,
                epoch: NOW - 3600,
                note: null,
              },
            ],
          },
        ],
      ]),
      weather: [],
    };
    const out = run(config, probe(12), { soil: soaked });
    expect(today(out)?.reason_code).toBe('not_due');
    expect(today(out)?.planned_seconds).toBe(0);
    expect(forecastOf(out).disagreement).toContain('not due');
    // Without the probe the plan is the same: the dry reading did not buy a run.
    const without = computeIrrigation(input({ config, soil: soaked }));
    expect(today(without)?.planned_seconds).toBe(0);
    // A dry reading on a due zone is no disagreement.
    expect(forecastOf(run(config, probe(12))).disagreement).toBeNull();
  });
});
