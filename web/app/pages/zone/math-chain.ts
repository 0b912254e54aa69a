import { formatDuration } from '../../lib/time';
import type {
  IrrigationSnapshot,
  TraceStep,
  TraceZone,
  WaterBudget,
  WaterPlanZone,
  Zone,
} from '../zones/irrigation-types';
import { todayPlanOf, traceOf, type Format } from '../zones/zone-model';
import { describe, SOIL_TEXT, SPECIES_TEXT, SPRINKLER_TEXT } from '../wizard/catalog';

/**
 * Today's plan for one zone as the FAO-56 chain a person can follow (pure):
 * ET0 -> Kc -> ETc -> rain credit -> depletion against TAW/RAW (the MAD
 * trigger) -> throughput -> run time -> cap -> cycles/soak -> planned
 * seconds, each with its unit, plus one plain-language sentence. A term the
 * engine could not know is null (shown as unknown), never 0.
 */

export interface ChainRow {
  key: string;
  term: string;
  /** Formatted value, or null = unknown. */
  value: string | null;
  /** How the term was obtained or what it means. */
  note: string | null;
}

export interface MathChain {
  model: 'soil' | 'weekly' | string;
  rows: ChainRow[];
  sentence: string;
}

const METHOD: Record<string, string> = {
  penman_monteith: 'FAO-56 Penman-Monteith',
  hargreaves: 'Hargreaves-Samani',
  hargreaves_samani: 'Hargreaves-Samani',
  reported: 'reported by the forecast',
};

/** A catalog value by its display name (the wizard's words, held to the server's catalogs). */
function named(table: Parameters<typeof describe>[0], code: string | null | undefined): string | null {
  return code ? describe(table, code).label : null;
}

function words(code: string | null | undefined): string | null {
  return code ? code.replace(/_/g, ' ') : null;
}

function finite(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

function todayStep(trace: TraceZone | null, today: string | undefined): TraceStep | null {
  const steps = trace?.steps ?? [];
  return (
    steps.find((s) => s.date_local === today && s.kind === 'projected') ??
    steps.find((s) => s.date_local === today) ??
    null
  );
}

function stripSeconds(reason: string): string {
  return reason.replace(/;\s*\d+\s*s$/, '').replace(/[.\s]+$/, '');
}

export function buildMathChain(zone: Zone, snapshot: IrrigationSnapshot, fmt: Format): MathChain {
  const trace = traceOf(snapshot, zone.slug);
  const plan: WaterPlanZone | null = todayPlanOf(snapshot, zone.slug);
  const budget: WaterBudget | undefined = snapshot.water_budgets?.find((b) => b.zone === zone.slug);
  const math = zone.math;
  const inputs = trace?.inputs ?? {};
  const step = todayStep(trace, snapshot.decision_trace?.date_local);
  const model = trace?.model ?? plan?.model ?? budget?.scheduling_model ?? 'soil';
  const complete = finite(math?.taw_mm) !== null;
  const depth = (mm: number | null | undefined) => (finite(mm) === null ? null : fmt('depth_mm', mm));

  const et0 = finite(step?.et0_mm);
  const kc = complete ? (finite(math?.kc) ?? finite(trace?.kc_today)) : null;
  const etc = finite(step?.etc_mm) ?? (et0 !== null && kc !== null ? et0 * kc : null);
  const taw = finite(math?.taw_mm);
  const raw = finite(math?.raw_mm);
  const mad = finite(inputs.mad) ?? (taw && raw !== null ? raw / taw : null);
  const bucket = finite(math?.bucket_mm);
  const exact = bucket === null ? null : Math.max(0, -bucket);
  const range =
    bucket === null ? (math?.depletion_range_mm ?? trace?.today_depletion_range_mm ?? null) : null;
  const rate = math?.throughput_known === false ? null : finite(zone.throughput_mm_hr);
  const efficiency = finite(inputs.capture_efficiency);
  const planned = finite(zone.planned_run_seconds ?? plan?.planned_seconds);
  const uncapped = finite(plan?.uncapped_seconds);
  const capMinutes = finite(inputs.max_run_minutes);
  const capBinding = math?.cap_binding ?? plan?.session_capped ?? false;
  const shortfall = finite(math?.cap_shortfall_mm);
  const cycles = math?.cycles_s ?? [];
  const cycleCount = math?.cycle_count ?? cycles.length;
  const soak = finite(math?.soak_s);
  const reason = plan?.reason ?? trace?.why ?? null;
  const due =
    exact !== null && raw !== null ? exact >= raw : range && raw !== null && range[0] >= raw ? true : null;

  const rows: ChainRow[] = [];
  const add = (key: string, term: string, value: string | null, note: string | null = null) =>
    rows.push({ key, term, value, note });

  add(
    'et0',
    'ET₀ (reference evapotranspiration, today)',
    depth(et0),
    et0 === null ? 'no ET₀ for today' : (METHOD[step?.et0_method ?? ''] ?? words(step?.et0_method)),
  );
  add(
    'kc',
    'Kc (crop coefficient)',
    kc === null ? null : kc.toFixed(2),
    complete
      ? [
          named(SPECIES_TEXT, inputs.species),
          inputs.sun_factor !== undefined && inputs.sun_factor !== null && inputs.sun_factor !== 1
            ? `sun factor ${inputs.sun_factor}`
            : null,
        ]
          .filter(Boolean)
          .join(', ') || null
      : 'zone settings incomplete',
  );
  add('etc', 'ETc = ET₀ × Kc (water the plants use today)', depth(etc));

  if (model === 'weekly') {
    const b = trace?.weekly?.budget;
    add('target', 'Weekly budget', depth(b?.target_mm));
    add(
      'rain_credit',
      'Rain credited (last 7 days)',
      depth(b?.observed_rain_credited_mm ?? budget?.observed_rain_credited_mm),
      budget?.observed_rain_source ? `from ${words(budget.observed_rain_source)}` : null,
    );
    add('applied', 'Irrigation applied (last 7 days)', depth(b?.applied_mm ?? budget?.applied_mm));
    add(
      'forecast_credit',
      'Forecast rain credit',
      depth(trace?.forecast_credit_mm ?? budget?.forecast_credit_mm),
      words(trace?.forecast_credit_source ?? budget?.forecast_credit_source),
    );
    add('needed', 'Still needed this week', depth(b?.needed_mm ?? budget?.needed_mm));
    add(
      'per_session',
      'Per session',
      depth(b?.mm_per_session ?? budget?.mm_per_session),
      b?.remaining_sessions !== undefined ? `${b.remaining_sessions} session(s) left` : null,
    );
  } else {
    const rainToday = finite(step?.rain_mm);
    add(
      'rain',
      'Rain today',
      depth(rainToday),
      rainToday === null
        ? 'no rain evidence for today'
        : step?.rain_source
          ? `from ${words(step.rain_source)}`
          : null,
    );
    add(
      'rain_credit',
      'Rain credited to the soil',
      depth(step?.rain_credited_mm),
      finite(inputs.rain_cap_mm) !== null
        ? `at most ${fmt('depth_mm', inputs.rain_cap_mm)} a day${inputs.rain_cap_inferred ? ' (from soil and roots)' : ''}`
        : null,
    );
    add(
      'forecast_credit',
      'Forecast rain credit',
      depth(trace?.forecast_credit_mm ?? budget?.forecast_credit_mm),
      words(trace?.forecast_credit_source ?? budget?.forecast_credit_source),
    );
    add(
      'depletion',
      'Depletion (how far below full)',
      exact !== null
        ? fmt('depth_mm', exact)
        : range
          ? `${fmt('depth_mm', range[0])} – ${fmt('depth_mm', range[1])}`
          : null,
      exact !== null ? null : range ? 'only a range is known' : 'no bucket can be derived',
    );
    add(
      'taw',
      'TAW (water the root zone holds)',
      depth(taw),
      [
        named(SOIL_TEXT, inputs.soil_texture),
        finite(inputs.root_depth_mm) !== null ? `roots ${fmt('depth_mm', inputs.root_depth_mm)}` : null,
      ]
        .filter(Boolean)
        .join(', ') || null,
    );
    add(
      'raw',
      'RAW = MAD × TAW (the trigger)',
      depth(raw),
      mad !== null
        ? `MAD ${Math.round(mad * 100)}%${inputs.mad_source ? ` (${words(inputs.mad_source)})` : ''}`
        : null,
    );
    add(
      'trigger',
      'Due? (depletion ≥ RAW)',
      due === null ? null : due ? 'yes' : 'no',
      due === null ? 'cannot tell on the evidence' : null,
    );
  }

  add(
    'throughput',
    'Throughput (sprinkler precipitation rate)',
    rate === null ? null : `${fmt('depth_mm', rate)}/h`,
    [
      named(SPRINKLER_TEXT, inputs.sprinkler_type),
      inputs.precip_rate_source ? words(inputs.precip_rate_source) : null,
      efficiency !== null ? `${Math.round(efficiency * 100)}% capture efficiency` : null,
    ]
      .filter(Boolean)
      .join(', ') || null,
  );
  add(
    'uncapped',
    'Run time needed',
    uncapped === null ? null : uncapped > 0 ? formatDuration(uncapped) : 'none',
    model === 'weekly' ? 'per session depth ÷ throughput' : 'depletion ÷ efficiency ÷ throughput',
  );
  add(
    'cap',
    'Per-run cap',
    capMinutes === null ? null : `${capMinutes} min`,
    capBinding
      ? `binding: the cap set today’s minutes${shortfall !== null && shortfall > 0 ? `, leaving ${depth(shortfall)} out` : ''}`
      : 'not binding',
  );
  add(
    'cycles',
    'Cycles and soak',
    cycleCount > 0 ? `${cycleCount} × ${cycles.map((s) => formatDuration(s)).join(' + ')}` : 'none',
    cycleCount > 1 && soak !== null
      ? `${formatDuration(soak)} soak between cycles`
      : cycleCount === 1
        ? 'one cycle'
        : null,
  );
  add(
    'planned',
    'Planned today',
    planned === null ? null : planned > 0 ? formatDuration(planned) : 'none',
    reason ? stripSeconds(reason) : null,
  );

  // ---- the sentence ----
  const parts: string[] = [];
  if (etc !== null && et0 !== null && kc !== null)
    parts.push(
      `Plants here use about ${fmt('depth_mm', etc)} of water today (ET₀ ${fmt('depth_mm', et0)} × Kc ${kc.toFixed(2)}).`,
    );
  else parts.push('Today’s water use is unknown (ET₀ or Kc is missing).');
  if (model !== 'weekly') {
    const holds =
      taw !== null && raw !== null
        ? ` The root zone holds ${fmt('depth_mm', taw)}; it is watered once ${fmt('depth_mm', raw)} is used up.`
        : taw !== null
          ? ` The root zone holds ${fmt('depth_mm', taw)}.`
          : raw !== null
            ? ` It is watered once ${fmt('depth_mm', raw)} is used up.`
            : '';
    if (exact !== null) parts.push(`The soil is ${fmt('depth_mm', exact)} below full.${holds}`);
    else if (range)
      parts.push(
        `How dry the soil is is only known to lie between ${fmt('depth_mm', range[0])} and ${fmt('depth_mm', range[1])} below full.${holds}`,
      );
    else parts.push(`How dry the soil is is unknown.${holds}`);
  }
  if (planned !== null && planned > 0) {
    const split =
      cycleCount > 1 && soak !== null ? ` in ${cycleCount} cycles with ${formatDuration(soak)} soaks` : '';
    const cap = capBinding && capMinutes !== null ? `, held to the ${capMinutes}-minute cap` : '';
    const at = rate !== null ? ` at ${fmt('depth_mm', rate)}/h` : '';
    parts.push(
      `So Raincheck plans ${formatDuration(planned)}${split}${at}${cap}${reason ? ` (${stripSeconds(reason)})` : ''}.`,
    );
  } else if (planned === 0) {
    parts.push(`So no water is planned today${reason ? `: ${stripSeconds(reason)}` : ''}.`);
  } else parts.push('Today’s planned run time is unknown.');

  return { model, rows, sentence: parts.join(' ') };
}
