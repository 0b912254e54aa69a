import { localizeUnits } from '../../../server/src/core/units/localize';
import { UNITS, type UnitSystem } from '../../../server/src/core/units/quantities';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { explainVerdict } from '../../../server/src/irrigation/engine/explain';
import type { EngineOutput } from '../../../server/src/irrigation/engine/types';
import { windyMorning } from './fixtures';

/**
 * The engine's sentences follow `deployment.units` (imperial by default):
 * skip rules, plan reasons, the verdict's reason and the explanation. The
 * machine fields (`*_mm`, `*_in`, `*_f`, `*_mph`) do not change with it.
 */

const out: Record<UnitSystem, EngineOutput> = {
  imperial: computeIrrigation(windyMorning('imperial')),
  metric: computeIrrigation(windyMorning('metric')),
};

const SENTENCE_KEYS = new Set(['reason', 'today_reason', 'soil_deferred_reason', 'why', 'deferred_reason']);

/** Every human sentence of an output. */
function sentences(o: EngineOutput): string[] {
  const found: string[] = [];
  JSON.stringify(o, (key, value: unknown) => {
    if (SENTENCE_KEYS.has(key) && typeof value === 'string' && value !== '') found.push(value);
    return value;
  });
  return found;
}

/** The output with its sentences blanked: what machines read. */
function machineFields(o: EngineOutput): unknown {
  return JSON.parse(JSON.stringify(o, (key, value: unknown) => (SENTENCE_KEYS.has(key) ? '' : value)));
}

const IMPERIAL_UNIT = /\d(?: in\b| in\/hr\b|°F| mph\b)/;
const METRIC_UNIT = /\d(?: mm\b| mm\/h\b|°C| km\/h\b)/;

function rule(o: EngineOutput, id: string): string {
  const rules = (o.snapshot.skip_check as unknown as { rules: { rule: string; reason: string }[] }).rules;
  const found = rules.find((r) => r.rule === id);
  if (!found) throw new Error(`no rule ${id}`);
  return found.reason;
}

describe('reason sentences in the owner units', () => {
  it('writes imperial by default and metric when deployment.units says so, never mixing', () => {
    const imperial = sentences(out.imperial);
    const metric = sentences(out.metric);
    expect(imperial.length).toBeGreaterThan(50);
    expect(imperial.filter((s) => METRIC_UNIT.test(s))).toEqual([]);
    expect(metric.filter((s) => IMPERIAL_UNIT.test(s))).toEqual([]);
    expect(imperial.join('\n')).toMatch(/\d in\b/);
    expect(metric.join('\n')).toMatch(/\d mm\b/);
  });

  it('says each skip rule with its numbers converted', () => {
    expect(rule(out.imperial, 'wind_forecast')).toBe(
      'Windy forecast: peak wind over the run window is 18 mph, above 15 mph (10 mph + 5 mph slack).',
    );
    expect(rule(out.metric, 'wind_forecast')).toBe(
      'Windy forecast: peak wind over the run window is 29 km/h, above 24.1 km/h (16.1 km/h + 8 km/h slack).',
    );
    expect(rule(out.imperial, 'tomorrow_rain')).toBe(
      'Rain tomorrow: 0.54 in weighted (0.6 in x 90% chance), at or above 0.25 in.',
    );
    expect(rule(out.metric, 'tomorrow_rain')).toBe(
      'Rain tomorrow: 13.7 mm weighted (15.2 mm x 90% chance), at or above 6.3 mm.',
    );
    expect(rule(out.imperial, 'rain_now')).toBe(
      'Not raining now: 0 in/hr (station gauge) is below the 0.01 in/hr threshold.',
    );
    expect(rule(out.metric, 'rain_now')).toBe(
      'Not raining now: 0 mm/h (station gauge) is below the 0.25 mm/h threshold.',
    );
    expect(rule(out.metric, 'freeze')).toBe(
      'No freeze risk: the low over the run window is 21.1°C, above the 3.3°C minimum.',
    );
  });

  it("gives a plan reason's depths the machine fields' values", () => {
    for (const units of ['imperial', 'metric'] as const) {
      const unit = UNITS.depth_mm[units];
      const step = 10 ** -unit.sentence;
      const days = out[units].snapshot.water_plan.flatMap((d) => d.zones);
      const unknown = days.filter((z) => z.reason_code === 'depletion_unknown');
      expect(unknown.length).toBeGreaterThan(0);
      for (const z of unknown) {
        const [, lo, hi, trigger] =
          new RegExp(
            `lie in ([\\d.]+)\\.\\.([\\d.]+) ${unit.unit} .*trigger of ([\\d.]+) ${unit.unit}:`,
          ).exec(z.reason) ?? [];
        const [loMm, hiMm] = z.depletion_range_mm ?? [NaN, NaN];
        expect(Math.abs(unit.api(Number(lo)) - loMm)).toBeLessThanOrEqual(unit.api(step));
        expect(Math.abs(unit.api(Number(hi)) - hiMm)).toBeLessThanOrEqual(unit.api(step));
        expect(Math.abs(unit.api(Number(trigger)) - (z.trigger_mm as number))).toBeLessThanOrEqual(
          unit.api(step),
        );
      }
    }
  });

  it('keeps every machine field as it was: only the sentences change', () => {
    expect(machineFields(out.metric)).toEqual(machineFields(out.imperial));
    expect(out.metric.verdictReason.reason_code).toBe(out.imperial.verdictReason.reason_code);
  });

  it('explains today in the owner units (the explanation route and the advisor read this)', () => {
    const imperial = explainVerdict(out.imperial);
    const metric = explainVerdict(out.metric);
    expect(imperial).toContain('peak wind over the run window is 18 mph');
    expect(metric).toContain('peak wind over the run window is 29 km/h');
    expect(imperial).not.toMatch(METRIC_UNIT);
    expect(metric).not.toMatch(IMPERIAL_UNIT);
  });

  it('reads back in the other system (the app converts a stored sentence after a units change)', () => {
    const back = sentences(out.metric).map((s) => localizeUnits(s, 'imperial'));
    expect(back.filter((s) => METRIC_UNIT.test(s))).toEqual([]);
    expect(localizeUnits(rule(out.metric, 'wind_forecast'), 'imperial')).toBe(
      rule(out.imperial, 'wind_forecast'),
    );
    const forth = sentences(out.imperial).map((s) => localizeUnits(s, 'metric'));
    expect(forth.filter((s) => IMPERIAL_UNIT.test(s))).toEqual([]);
  });
});
