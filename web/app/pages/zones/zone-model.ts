import { formatAge, formatDateTime, formatDuration } from '../../lib/time';
import type {
  ActionResult,
  IrrigationSnapshot,
  OverrideMode,
  TraceZone,
  WaterPlanZone,
  Zone,
} from './irrigation-types';

/**
 * What the zone cards and the zone page say about a zone (pure: no DOM, no
 * Preact). Unknown stays unknown: a zone whose controller cannot report its
 * state is "Unknown", a bucket the engine cannot derive has no depletion, a
 * zone that never ran says "never".
 */

/** The quantities of lib/units.ts the pages format (kept here so this file needs no Preact). */
export type QuantityName =
  'temp_f' | 'wind_mph' | 'rain_in' | 'pressure_inhg' | 'depth_mm' | 'volume_gal' | 'pct' | 'area_sqft';

/** formatQuantity bound to the display units; null -> the unknown mark. */
export type Format = (quantity: QuantityName, value: number | null | undefined) => string;

export type ZoneStateText = 'Running' | 'Idle' | 'Unknown';

/** Spec 3: `running` is only meaningful with `running_known`. */
export function zoneStateText(zone: Pick<Zone, 'running' | 'running_known'>): ZoneStateText {
  if (!zone.running_known) return 'Unknown';
  return zone.running ? 'Running' : 'Idle';
}

export interface Depletion {
  /** Exact depletion (mm below full), or null. */
  exact: number | null;
  /** The range the engine could prove when the exact value is unknown. */
  range: [number, number] | null;
  /** Capacity: total available water (mm), null when the zone's config is incomplete. */
  taw: number | null;
  /** Trigger: readily available water (mm). */
  raw: number | null;
}

/** bucket_mm is a deficit (negative = needs water); depletion is its opposite, never below 0. */
export function depletionOf(zone: Zone): Depletion {
  const math = zone.math;
  const bucket = math?.bucket_mm ?? zone.bucket_mm ?? null;
  const range = math?.depletion_range_mm ?? null;
  return {
    exact: bucket === null || !Number.isFinite(bucket) ? null : Math.max(0, -bucket),
    range: bucket === null && range ? [range[0], range[1]] : null,
    taw: finiteOrNull(math?.taw_mm),
    raw: finiteOrNull(math?.raw_mm),
  };
}

export interface Gauge {
  /** Filled share 0..100 (exact depletion), or null. */
  fillPct: number | null;
  /** The proven range as a share 0..100, when the exact value is unknown. */
  rangePct: [number, number] | null;
  /** Where the trigger sits, 0..100. */
  markPct: number | null;
  /**
   * True when depletion has reached the trigger (RAW). Geometry only: whether
   * the zone is due is the engine's verdict (zone-standing.ts), which may wait
   * for forecast rain or hold past the trigger.
   */
  pastTrigger: boolean | null;
  /** A sentence for the gauge (screen readers and the caption). */
  text: string;
}

/** The narrowest the proven range is drawn (percent of the bar), so a narrow range stays visible. */
const MIN_RANGE_PCT = 3;

/** Geometry and wording of the bucket gauge: depletion against the trigger (RAW) and capacity (TAW). */
export function bucketGauge(d: Depletion, fmt: Format): Gauge {
  const pct = (mm: number) => (d.taw && d.taw > 0 ? clamp((mm / d.taw) * 100, 0, 100) : 0);
  const capacity = d.taw !== null ? `${fmt('depth_mm', d.taw)} capacity` : 'capacity unknown';
  const trigger = d.raw !== null ? `waters at ${fmt('depth_mm', d.raw)}` : 'trigger unknown';
  const known = d.taw !== null && d.taw > 0;
  // A range whose ends read the same in the user's units is, as shown, one value.
  const collapsed = d.range !== null && fmt('depth_mm', d.range[0]) === fmt('depth_mm', d.range[1]);
  const exact = d.exact ?? (collapsed && d.range ? d.range[0] : null);
  if (exact !== null) {
    const empty = known && d.taw !== null && exact >= d.taw;
    return {
      fillPct: known ? pct(exact) : null,
      rangePct: null,
      markPct: known && d.raw !== null ? pct(d.raw) : null,
      pastTrigger: d.raw !== null ? exact >= d.raw : null,
      text: empty
        ? `Completely dry: ${fmt('depth_mm', exact)} below full, all of its ${capacity} · ${trigger}`
        : `${fmt('depth_mm', exact)} dry of ${capacity} · ${trigger}`,
    };
  }
  if (d.range) {
    const [lo, hi] = d.range;
    const width = Math.max(MIN_RANGE_PCT, pct(hi) - pct(lo));
    return {
      fillPct: null,
      rangePct: known ? [Math.min(pct(lo), 100 - width), Math.min(pct(lo), 100 - width) + width] : null,
      markPct: known && d.raw !== null ? pct(d.raw) : null,
      pastTrigger: d.raw !== null && lo >= d.raw ? true : d.raw !== null && hi < d.raw ? false : null,
      text: `Between ${fmt('depth_mm', lo)} and ${fmt('depth_mm', hi)} dry (exact value unknown) of ${capacity} · ${trigger}`,
    };
  }
  return {
    fillPct: null,
    rangePct: null,
    markPct: known && d.raw !== null ? pct(d.raw) : null,
    pastTrigger: null,
    text: `Soil water unknown (no bucket can be derived) · ${trigger}`,
  };
}

/**
 * Planned seconds are a plan, not delivered water; 0 is a real "nothing
 * planned". They are the zone's figure for the next run window still to come
 * (tomorrow's once today's has closed), as the snapshot gives them.
 */
export function plannedText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'unknown';
  if (seconds <= 0) return 'none planned';
  return formatDuration(seconds);
}

/** last_run_epoch 0 means no run on record: "never", not a 1970 date. */
export function lastRunText(epoch: number | null | undefined, nowMs = Date.now(), timeZone?: string): string {
  if (epoch === null || epoch === undefined || !Number.isFinite(epoch)) return 'unknown';
  if (epoch <= 0) return 'never';
  return `${formatDateTime(epoch, timeZone)} (${formatAge(epoch, nowMs)})`;
}

/** The zone's sticky override as the snapshot states it; null when the snapshot does not say (unknown). */
export function overrideOf(snapshot: IrrigationSnapshot, slug: string): OverrideMode | null {
  return snapshot.zones.find((zone) => zone.slug === slug)?.override ?? null;
}

export const OVERRIDE_LABELS: Record<OverrideMode, string> = {
  auto: 'Auto (Raincheck decides)',
  skip: 'Always skip',
  run: 'Always run',
};

export function runAnnouncement(name: string, minutes: number, result: ActionResult | undefined): string {
  const seconds = result?.seconds;
  const shown = seconds !== undefined && Number.isFinite(seconds) ? Math.round(seconds / 60) : minutes;
  let text = `${name} running for ${shown} min`;
  if (result?.clamped) text += ' (shortened to the 2-hour limit)';
  if (result?.confirm_within_s && result.confirm_within_s > 0)
    text += `; the controller confirms within ${formatDuration(result.confirm_within_s)}`;
  return text;
}

export function stopAnnouncement(name: string, result: ActionResult | undefined): string {
  if (result?.scope === 'device')
    return `${name} stopped: the controller has no per-zone stop, so the whole controller was stopped${result.note ? ` (${result.note})` : ''}`;
  return `${name} stopped`;
}

/** The zone's row of today's water plan, when the snapshot has one. */
export function todayPlanOf(snapshot: IrrigationSnapshot, slug: string): WaterPlanZone | null {
  const today = snapshot.water_plan?.find((d) => d.day_offset === 0);
  return today?.zones.find((z) => z.zone === slug) ?? null;
}

export function traceOf(snapshot: IrrigationSnapshot, slug: string): TraceZone | null {
  return snapshot.decision_trace?.zones?.[slug] ?? null;
}

/** Why today's plan for the zone is what it is (the engine's own words). */
export function zoneReason(snapshot: IrrigationSnapshot, slug: string): string | null {
  const reason =
    todayPlanOf(snapshot, slug)?.reason ??
    snapshot.zone_verdicts?.find((v) => v.zone === slug)?.reason ??
    traceOf(snapshot, slug)?.why ??
    null;
  // Forced runs end in "; 1261 s": the planned minutes are shown beside it.
  return reason === null ? null : reason.replace(/;\s*\d+\s*s$/, '');
}

function finiteOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

function clamp(value: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, value));
}
