import { monthlyKc } from '../../agronomy/catalogs/species';
import { sunFactor } from '../../agronomy/catalogs/sun';
import { MM_PER_INCH } from '../../agronomy/catalogs/units';
import { resolveRainCap } from '../../agronomy/soil/water-balance';
import { isWateringEvidence, unionIntervals } from '../engine/applied-water';
import { monthOf } from '../engine/et0-days';
import type { ZoneEvidence } from './evidence';
import { round, sum } from './stats';

/**
 * What a weekly-model zone's crop used over the window, from the daily
 * weather record (pure): ETc = Kc (the species' month, the site's latitude)
 * x ET0 (the engine's, from the record) x the sun factor, and the rain
 * credited after the zone's per-day cap (its own, else TAW when the zone has
 * a soil model, else uncapped).
 *
 * The weekly budget that matches it (inches, gross, rain included: the
 * weekly model subtracts credited rain from it, spec 2.5):
 *
 *   per week  E = 7/n x sum ETc,   R = 7/n x sum credited rain
 *   budget    = min(R, E) + max(0, E - R) / capture efficiency
 *
 * so in a week like the window's the model lets through exactly the water
 * the crop used. Days count when both ET0 and rain are known; at least
 * max(7, 80 % of the window) are needed.
 */

export const MIN_COVERAGE = 0.8;
export const MIN_DAYS = 7;

export interface WeeklyDemand {
  from: string;
  to: string;
  days: number;
  et0_mm: number;
  etc_mm: number;
  rain_mm: number;
  rain_credited_mm: number;
  cap_mm: number | null;
  kc_min: number;
  kc_max: number;
  sun_factor: number;
  /** Per week. */
  etc_week_mm: number;
  rain_week_mm: number;
  net_week_mm: number;
  budget_in: number;
  /** Gross sprinkler water the run ledger shows per week; null without a rate. */
  applied_week_mm: number | null;
}

export type DemandReading =
  { ok: true; demand: WeeklyDemand } | { ok: false; waiting_for: string; detail: string };

export function weeklyDemand(evidence: ZoneEvidence): DemandReading {
  const species = evidence.zone.species ?? null;
  if (!species)
    return { ok: false, waiting_for: 'a species', detail: "the crop coefficient needs the zone's species" };
  if (!evidence.weatherRecord) {
    return {
      ok: false,
      waiting_for: 'the daily weather record (ET0)',
      detail: 'the weather record is not available',
    };
  }
  const known = evidence.weatherRecord.filter((d) => d.et0_mm !== null && d.rain_mm !== null);
  const needed = Math.max(MIN_DAYS, Math.ceil(MIN_COVERAGE * evidence.window.days));
  if (known.length < needed) {
    return {
      ok: false,
      waiting_for: 'the daily weather record (ET0)',
      detail: `ET0 and rain are known on ${known.length} of the last ${evidence.window.days} days; ${needed} are needed`,
    };
  }
  const resolved = evidence.resolved;
  const cap = resolveRainCap(
    evidence.zone.rain_credit_cap_in,
    resolved.complete ? resolved.capacity.taw_mm : null,
  ).cap_mm;
  const sun = sunFactor(evidence.zone.sun_exposure);
  const kcs = known.map((d) => monthlyKc(species, monthOf(d.date_local), evidence.site.lat));
  const etc = sum(known.map((d, i) => (kcs[i] as number) * (d.et0_mm as number) * sun));
  const rain = sum(known.map((d) => d.rain_mm as number));
  const credited = sum(
    known.map((d) => (cap === null ? (d.rain_mm as number) : Math.min(d.rain_mm as number, cap))),
  );
  const perWeek = 7 / known.length;
  const e = etc * perWeek;
  const r = credited * perWeek;
  const net = Math.max(0, e - r);
  const budgetMm = Math.min(r, e) + net / evidence.site.capture_efficiency;
  return {
    ok: true,
    demand: {
      from: (known[0] as { date_local: string }).date_local,
      to: (known.at(-1) as { date_local: string }).date_local,
      days: known.length,
      et0_mm: sum(known.map((d) => d.et0_mm as number)),
      etc_mm: etc,
      rain_mm: rain,
      rain_credited_mm: credited,
      cap_mm: cap,
      kc_min: Math.min(...kcs),
      kc_max: Math.max(...kcs),
      sun_factor: sun,
      etc_week_mm: e,
      rain_week_mm: r,
      net_week_mm: net,
      budget_in: budgetMm / MM_PER_INCH,
      applied_week_mm: appliedPerWeek(evidence),
    },
  };
}

/** The record's account, for evidence lines. */
export function demandLines(d: WeeklyDemand, species: string, captureEfficiency: number): string[] {
  const kc = d.kc_min === d.kc_max ? `${d.kc_min}` : `${d.kc_min}..${d.kc_max}`;
  const cap = d.cap_mm === null ? 'no cap' : `the ${round(d.cap_mm, 1)} mm per-day cap`;
  return [
    `Weather record ${d.from}..${d.to} (${d.days} days): ET0 ${round(d.et0_mm, 1)} mm x Kc ${kc} (${species})` +
      `${d.sun_factor === 1 ? '' : ` x sun ${d.sun_factor}`}: the crop used ${round(d.etc_mm, 1)} mm; ` +
      `rain ${round(d.rain_mm, 1)} mm, ${round(d.rain_credited_mm, 1)} mm credited after ${cap}.`,
    `Per week: the crop uses ${round(d.etc_week_mm, 1)} mm, rain covers ${round(Math.min(d.rain_week_mm, d.etc_week_mm), 1)} mm; ` +
      `${round(d.net_week_mm, 1)} mm more must reach the roots, ${round(d.net_week_mm / captureEfficiency, 1)} mm of ` +
      `sprinkler water at ${Math.round(captureEfficiency * 100)} % capture: a budget of ${round(d.budget_in, 2)} in with the rain.`,
    ...(d.applied_week_mm === null
      ? []
      : [
          `The run ledger shows ${round(d.applied_week_mm / MM_PER_INCH, 2)} in of sprinkler water a week over the window.`,
        ]),
  ];
}

/** Gross sprinkler depth per week from the run ledger's real water (union of open time x the zone's rate). */
function appliedPerWeek(evidence: ZoneEvidence): number | null {
  const rate = evidence.resolved.precip_rate_mm_hr;
  if (rate === null) return null;
  const open = unionIntervals(
    evidence.runs
      .filter(isWateringEvidence)
      .map((r) => [r.start_epoch, r.start_epoch + r.duration_s] as const),
  );
  const seconds = open.reduce((total, [a, b]) => total + (b - a), 0);
  return ((seconds / 3600) * rate * 7) / evidence.window.days;
}
