import type { SoilLedgerRow } from '../../store/soil-ledger';
import { bandedEt0OfRecord } from '../soil/et0-bridge';
import { grossDepthMm } from '../soil/irrigation-evidence';
import { stateOfRow, unknownState, type LedgerDayInput, type SoilState } from '../soil/ledger-day';
import { replayLedger } from '../soil/ledger-replay';
import type { ZoneLedger } from './applied-water';
import { traceOfRow, type SoilStepTrace } from './soil-model';
import type { EngineContext } from './context';
import type { CompleteZone } from './zone-inputs';

/**
 * Where a soil zone starts today (pure): tonight's closing state.
 *
 * - With the persisted ledger (`input.soil`): the closing state of its last
 *   closed day. Days between that and yesterday the ledger has not closed
 *   yet are stepped here with the same ledger code and the evidence at hand.
 * - Without one (no database): the forecast's past days and the gauge are
 *   replayed in memory from an unknown start, the same code again.
 *
 * Then today's own evidence: a state the owner declared for today replaces
 * the start, and water already applied today enters (no ETc yet: the day is
 * not over).
 */

export interface SoilStart {
  /** The state the day's decision starts from (after today's declared state and water). */
  today: SoilState;
  /** Closed days behind it, oldest first (stored, or stepped here). */
  past: SoilLedgerRow[];
  /** The last week of them as decision-trace steps. */
  past_steps: SoilStepTrace[];
  origin: 'ledger' | 'replay';
  /** Net water applied today so far, mm. */
  applied_today_net_mm: number;
  /** Today's declared state, if any. */
  declared_today: { source: 'owner' | 'probe'; depletion_mm: number } | null;
}

/** The engine plans twice per recompute (a provisional pass places the window): compute each zone's start once. */
const starts = new WeakMap<EngineContext, Map<string, SoilStart>>();

export function soilStart(zone: CompleteZone, ctx: EngineContext, ledger: ZoneLedger): SoilStart {
  let byZone = starts.get(ctx);
  if (!byZone) starts.set(ctx, (byZone = new Map()));
  let start = byZone.get(zone.slug);
  if (!start) byZone.set(zone.slug, (start = computeStart(zone, ctx, ledger)));
  return start;
}

function computeStart(zone: CompleteZone, ctx: EngineContext, ledger: ZoneLedger): SoilStart {
  const soil = ctx.input.soil?.zones.get(zone.slug);
  const yesterday = ctx.cal.addDays(ctx.cal.today, -1);
  const taw = zone.capacity.taw_mm;
  let past: SoilLedgerRow[];
  let state: SoilState;
  let origin: SoilStart['origin'];
  if (soil?.through && soil.closing) {
    origin = 'ledger';
    const tail = replay(
      zone,
      ctx,
      ledger,
      soil.closing,
      datesBetween(ctx, ctx.cal.addDays(soil.through, 1), yesterday),
    );
    past = [...soil.rows, ...tail.rows];
    state = tail.end;
  } else {
    origin = 'replay';
    const first = ctx.past_dates[0] ?? ctx.cal.today;
    const run = replay(zone, ctx, ledger, unknownState(taw, first), ctx.past_dates);
    past = run.rows;
    state = run.end;
  }
  const declared = [...(soil?.today_declarations ?? [])].sort((a, b) => a.epoch - b.epoch).at(-1) ?? null;
  if (declared) {
    const d = Math.min(taw, Math.max(0, declared.depletion_mm));
    state = { lo: d, hi: d, reason: null, since: null };
  }
  const applied = ledger.irrigation_by_date.get(ctx.cal.today);
  const net = applied ? grossDepthMm(applied, zone.precip_rate_mm_hr) * ctx.capture_efficiency : 0;
  if (net > 0) state = waterIn(state, net);
  return {
    today: state,
    past,
    past_steps: stepsOf(soil?.rows ?? null, past),
    origin,
    applied_today_net_mm: net,
    declared_today: declared ? { source: declared.source, depletion_mm: declared.depletion_mm } : null,
  };
}

/** The ledger view's rows are the same arrays until the ledger changes: their trace steps too. */
const stepCache = new WeakMap<readonly SoilLedgerRow[], SoilStepTrace[]>();

function stepsOf(viewRows: readonly SoilLedgerRow[] | null, past: SoilLedgerRow[]): SoilStepTrace[] {
  const cacheable = viewRows !== null && past.length === viewRows.length;
  const cached = cacheable ? stepCache.get(viewRows) : undefined;
  if (cached) return cached;
  const steps = past.slice(-7).map(traceOfRow);
  if (cacheable) stepCache.set(viewRows, steps);
  return steps;
}

/** Water entering a state: both bounds fall by it (not below field capacity); a filled range is known. */
export function waterIn(state: SoilState, netMm: number): SoilState {
  const lo = Math.max(0, state.lo - netMm);
  const hi = Math.max(0, state.hi - netMm);
  return hi - lo <= 1e-9 ? { lo, hi: lo, reason: null, since: null } : { ...state, lo, hi };
}

function replay(
  zone: CompleteZone,
  ctx: EngineContext,
  ledger: ZoneLedger,
  start: SoilState,
  dates: string[],
) {
  if (dates.length === 0) return { rows: [], end: start };
  const irrigation = ledger.irrigation_by_date;
  const site = { lat: ctx.lat, elevation_m: ctx.elevation_m };
  const days: LedgerDayInput[] = dates.map((date) => ({
    date,
    weather: ctx.weather_days.get(date),
    et0:
      ctx.record_et0.get(date) ??
      bandedEt0OfRecord(
        date,
        (d) => ctx.weather_days.get(d),
        (d, n) => ctx.cal.addDays(d, n),
        ctx.et0_method,
        site,
      ),
    irrigation: irrigation.get(date),
    declaration: null,
  }));
  const out = replayLedger(zone, start, days, { lat: ctx.lat, capture_efficiency: ctx.capture_efficiency });
  return { rows: out.rows, end: out.rows.length > 0 ? stateOfRow(out.rows.at(-1) as SoilLedgerRow) : start };
}

function datesBetween(ctx: EngineContext, from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = ctx.cal.addDays(d, 1)) out.push(d);
  return out;
}
