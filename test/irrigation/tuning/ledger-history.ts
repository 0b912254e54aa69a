import type { SoilLedgerRow } from '../../../server/src/store/soil-ledger';
import type { Store } from '../../../server/src/store/store';
import { addDays, localEpoch } from './recorded-history';

/**
 * A zone's soil ledger as the ledger service writes it, over days ending
 * yesterday, from a yard whose truth the test chooses (pure arithmetic, the
 * FAO-56 day of agronomy/soil/root-zone-day.ts in its simplest form):
 *
 * - the model: TAW, RAW, a daily potential ETc, the rain cap;
 * - the truth: the root zone's own TAW and RAW, rain above `runoffAboveMm`
 *   running off, and a probe whose calibration maps the true depletion to
 *   the model's millimetres times `scale` (model depth / true depth);
 * - the engine: a session refills the model's start depletion (net) once it
 *   reaches `waterAtMm`, with the matching run rows in the run ledger.
 *
 * With a probe each day starts from its anchor; without one the model
 * carries its own state.
 */

export interface YardSpec {
  zone: string;
  today: string;
  days: number;
  /** The model's bucket. */
  taw: number;
  raw: number;
  capMm: number;
  etc: number;
  /** The truth's bucket (default: the model's over `scale`). */
  trueTaw?: number;
  trueRaw?: number;
  scale?: number;
  probe?: boolean;
  /** Rain per day offset from today (-1 = yesterday), mm. */
  rain?: Record<number, number>;
  runoffAboveMm?: number;
  /** The model depletion (anchor) at which a session waters; default RAW. */
  waterAtMm?: number;
  rateMmHr?: number;
  captureEfficiency?: number;
}

export function yardLedger(spec: YardSpec): {
  rows: SoilLedgerRow[];
  sessions: { date: string; seconds: number }[];
} {
  const scale = spec.scale ?? 1;
  const trueTaw = spec.trueTaw ?? spec.taw / scale;
  const trueRaw = spec.trueRaw ?? spec.raw / scale;
  const waterAt = spec.waterAtMm ?? spec.raw;
  const rate = spec.rateMmHr ?? 20;
  const ce = spec.captureEfficiency ?? 0.7;
  const rows: SoilLedgerRow[] = [];
  const sessions: { date: string; seconds: number }[] = [];
  let truth = 0;
  let model = 0;
  for (let offset = -spec.days; offset <= -1; offset += 1) {
    const date = addDays(spec.today, offset);
    const anchor = spec.probe ? round3(Math.min(spec.taw, Math.max(0, scale * truth))) : null;
    const start = anchor ?? model;
    const net = start >= waterAt ? start : 0;
    const seconds = net > 0 ? Math.ceil((net / (rate * ce)) * 3600) : 0;
    if (seconds > 0) sessions.push({ date, seconds });
    const netIn = (seconds / 3600) * rate * ce;
    const rain = spec.rain?.[offset] ?? 0;
    const credited = Math.min(rain, spec.capMm);
    const after = Math.max(0, start - credited - netIn);
    const ks = ksOf(after, spec.taw, spec.raw);
    model = Math.min(spec.taw, after + ks * spec.etc);
    const soaked = Math.min(rain, spec.runoffAboveMm ?? Infinity);
    const trueAfter = Math.max(0, truth - soaked - netIn);
    truth = Math.min(trueTaw, trueAfter + ksOf(trueAfter, trueTaw, trueRaw) * spec.etc);
    rows.push(row(spec, date, { start, anchor, rain, credited, seconds, netIn, rate, ks, end: model }));
  }
  return { rows, sessions };
}

interface DayFacts {
  start: number;
  anchor: number | null;
  rain: number;
  credited: number;
  seconds: number;
  netIn: number;
  rate: number;
  ks: number;
  end: number;
}

function row(spec: YardSpec, date: string, d: DayFacts): SoilLedgerRow {
  return {
    zone: spec.zone,
    date_local: date,
    taw_mm: spec.taw,
    raw_mm: spec.raw,
    et0_mm: round3(spec.etc / 0.7),
    et0_method: 'source_native',
    kc: 0.7,
    ks: round3(d.ks),
    etc_mm: round3(d.ks * spec.etc),
    rain_mm: d.rain,
    rain_source: 'gauge',
    rain_credited_mm: round3(d.credited),
    irrigation_seconds: d.seconds,
    irrigation_gross_mm: round3((d.seconds / 3600) * d.rate),
    irrigation_net_mm: round3(d.netIn),
    irrigation_evidence: d.seconds > 0 ? 'observed' : 'none',
    irrigation_basis: d.seconds > 0 ? 'rate' : 'none',
    drainage_mm: 0,
    depletion_mm: round3(d.end),
    depletion_range_mm: null,
    range_reason: null,
    detail: {
      range_since: null,
      start_range_mm: [round3(d.start), round3(d.start)],
      after_water_range_mm: [0, 0],
      etc_potential_mm: spec.etc,
      sun_factor: 1,
      et0_reason: 'test',
      et0_inputs: {},
      anchor: d.anchor === null ? null : { source: 'probe', depletion_mm: d.anchor },
    },
  };
}

/** Writes the rows and each session's run rows (a scheduled session and its observed row). */
export function recordYard(store: Store, spec: YardSpec): SoilLedgerRow[] {
  const { rows, sessions } = yardLedger(spec);
  store.soilLedger.write(spec.zone, rows, 0);
  for (const s of sessions) {
    const base = {
      session_id: `sched-${s.date}-${spec.zone}`,
      zone: spec.zone,
      start_epoch: localEpoch(s.date, 4),
      duration_s: s.seconds,
      skip_reason: null,
      status: 'completed' as const,
      controller_id: 'os1',
      applied_mm: null,
      volume_gal: null,
      note: null,
      cycle_index: null,
      cycle_count: null,
    };
    store.runs.insert({ ...base, source: 'ha_refresher' });
  }
  return rows;
}

function ksOf(d: number, taw: number, raw: number): number {
  if (d <= raw) return 1;
  return Math.max(0, (taw - d) / (taw - raw));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
