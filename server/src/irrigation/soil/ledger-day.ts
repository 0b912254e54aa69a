import { monthlyKc } from '../../agronomy/catalogs/species';
import { isExact, rootZoneDay } from '../../agronomy/soil/root-zone-day';
import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { SoilStateDeclaration } from '../../store/soil-states';
import type { DailyWeather } from '../../store/weather-days';
import { rainSourceOf } from '../../weather-record/types';
import { monthOf } from '../engine/et0-days';
import type { CompleteZone } from '../engine/zone-inputs';
import type { RecordEt0 } from './et0-of-day';
import { depthBasis, grossDepthMm, type DayIrrigation } from './irrigation-evidence';

/**
 * One zone, one closed local day of the soil ledger (pure): the day's
 * evidence (weather record, ET0, the run ledger's water, a declared state)
 * applied to the previous day's closing state by the FAO-56 step
 * (agronomy/soil/root-zone-day.ts). The row is the whole story of the day.
 *
 * A declared state (the owner's "soaked", a calibrated probe) replaces the
 * day's start: it is newer evidence than anything carried into the day.
 *
 * A range keeps the reason it opened with (`start_unknown` before anything
 * was known, `rain_unknown`, `et0_unknown`, `et0_estimated` for an ET0 from
 * bridged inputs (soil/et0-bridge.ts), `irrigation_unknown`) and the date
 * it opened, until water in reaches its upper bound and it collapses.
 */

export interface SoilState {
  lo: number;
  hi: number;
  /** Why the state is a range; null when known (lo == hi). */
  reason: string | null;
  /** The date the range opened; null when known. */
  since: string | null;
}

export interface LedgerDayInput {
  date: string;
  weather: DailyWeather | undefined;
  et0: RecordEt0;
  irrigation: DayIrrigation | undefined;
  declaration: SoilStateDeclaration | null;
}

export interface LedgerSettings {
  lat: number;
  capture_efficiency: number;
}

export function unknownState(taw: number, since: string): SoilState {
  return { lo: 0, hi: taw, reason: 'start_unknown', since };
}

export function kcOf(zone: CompleteZone, date: string, lat: number): number {
  return monthlyKc(zone.species, monthOf(date), lat);
}

export function ledgerDay(
  zone: CompleteZone,
  start: SoilState,
  input: LedgerDayInput,
  settings: LedgerSettings,
): { row: SoilLedgerRow; state: SoilState } {
  const { taw_mm: taw, raw_mm: raw } = zone.capacity;
  const declared = input.declaration;
  const from: SoilState = declared ? declaredStart(declared, start, taw) : start;
  const irrigation = input.irrigation;
  const seconds = irrigation?.seconds ?? 0;
  const gross = irrigation ? grossDepthMm(irrigation, zone.precip_rate_mm_hr) : 0;
  const basis = depthBasis(irrigation);
  const net = gross * settings.capture_efficiency;
  const rain = input.weather?.rain_mm ?? null;
  const kc = kcOf(zone, input.date, settings.lat);
  const band = input.et0.band_mm ?? null;
  const day = rootZoneDay(
    { lo: from.lo, hi: from.hi },
    {
      et0_mm: input.et0.et0_mm,
      kc,
      sun_factor: zone.sun_factor,
      rain_mm: rain,
      net_irrigation_mm: net,
      et0_band_mm: band ? { lo: band[0], hi: band[1] } : null,
    },
    { taw_mm: taw, raw_mm: raw, rain_cap_mm: zone.rain_cap_mm },
  );
  const exact = isExact(day.end);
  const opened = exact
    ? null
    : isExact(day.start)
      ? band && input.et0.et0_mm !== null && day.missing.length === 0
        ? 'et0_estimated'
        : openedBy(day.missing)
      : from.reason;
  const state: SoilState = {
    lo: day.end.lo,
    hi: day.end.hi,
    reason: opened,
    since: exact ? null : isExact(day.start) ? input.date : from.since,
  };
  const row: SoilLedgerRow = {
    zone: zone.slug,
    date_local: input.date,
    taw_mm: r3(taw),
    raw_mm: r3(raw),
    et0_mm: r3n(input.et0.et0_mm),
    et0_method: input.et0.method,
    kc,
    ks: day.ks === null ? null : r3(day.ks),
    etc_mm: r3n(day.etc_adj_mm),
    rain_mm: r3n(rain),
    rain_source: rainSourceOf(input.weather),
    rain_credited_mm: r3n(day.rain_credited_mm),
    irrigation_seconds: Math.round(seconds),
    irrigation_gross_mm: r3(gross),
    irrigation_net_mm: r3(net),
    irrigation_evidence: seconds > 0 ? (irrigation?.evidence ?? 'observed') : 'none',
    irrigation_basis: basis,
    drainage_mm: r3n(day.drainage_mm),
    depletion_mm: exact ? r3(day.end.lo) : null,
    depletion_range_mm: exact ? null : [r3(day.end.lo), r3(day.end.hi)],
    range_reason: state.reason,
    detail: {
      range_since: state.since,
      start_range_mm: [r3(day.start.lo), r3(day.start.hi)],
      after_water_range_mm: [r3(day.after_water.lo), r3(day.after_water.hi)],
      etc_potential_mm: r3n(day.etc_mm),
      sun_factor: zone.sun_factor,
      et0_reason: input.et0.reason,
      et0_inputs: input.et0.inputs,
      ...(band ? { et0_band_mm: band } : {}),
      anchor: declared ? anchorOf(declared, from) : null,
      irrigation_metered_gal: irrigation && basis.startsWith('meter') ? r3(irrigation.metered_gal) : null,
    },
  };
  // The next day starts from the row as stored (rounded), so a restart that reads it back
  // continues exactly where an uninterrupted run would have.
  return { row, state: stateOfRow(row) };
}

/**
 * The day's start under a declaration: the declared depletion, or for a
 * calibrated probe's reconciliation (`step_mm`), the carried state moved
 * toward it by at most `step_mm` (a range start is first narrowed to it).
 */
function declaredStart(declared: SoilStateDeclaration, start: SoilState, taw: number): SoilState {
  const target = clampTo(declared.depletion_mm, taw);
  const step = declared.step_mm;
  const value =
    step === undefined ? target : clampTo(Math.min(start.hi + step, Math.max(start.lo - step, target)), taw);
  return { lo: value, hi: value, reason: null, since: null };
}

function anchorOf(
  declared: SoilStateDeclaration,
  from: SoilState,
): NonNullable<SoilLedgerRow['detail']['anchor']> {
  if (declared.step_mm === undefined)
    return { source: declared.source, depletion_mm: r3(declared.depletion_mm) };
  return {
    source: declared.source,
    depletion_mm: r3(from.lo),
    probe_depletion_mm: r3(declared.depletion_mm),
    ...(declared.sensor_id ? { sensor_id: declared.sensor_id } : {}),
  };
}

function openedBy(missing: readonly string[]): string {
  return missing.length > 0 ? `${missing[0]}_unknown` : 'start_unknown';
}

/** The closing state a stored row carries into the next day. */
export function stateOfRow(row: SoilLedgerRow): SoilState {
  if (row.depletion_mm !== null)
    return { lo: row.depletion_mm, hi: row.depletion_mm, reason: null, since: null };
  const [lo, hi] = row.depletion_range_mm ?? [0, row.taw_mm];
  return { lo, hi, reason: row.range_reason ?? 'start_unknown', since: row.detail.range_since };
}

function clampTo(x: number, taw: number): number {
  return Math.min(taw, Math.max(0, x));
}

/** Rows keep 3 decimals: enough for mm, and a replay of the same evidence writes the same bytes. */
function r3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function r3n(x: number | null): number | null {
  return x === null ? null : r3(x);
}
