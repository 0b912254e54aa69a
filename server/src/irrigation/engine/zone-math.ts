import { SOIL_CATALOG } from '../../agronomy/catalogs/soil';
import { SPECIES_CATALOG } from '../../agronomy/catalogs/species';
import { SPRINKLER_CATALOG } from '../../agronomy/catalogs/sprinklers';
import { DEFAULT_SUN_EXPOSURE, SUN_CATALOG } from '../../agronomy/catalogs/sun';
import { waterStressCoefficient } from '../../agronomy/soil/root-zone-day';
import type { EngineContext } from './context';
import { kcOf } from '../soil/ledger-day';
import { round } from './soil-model';
import type { ZonePlan } from './water-plan';

/**
 * The soil numbers of a zone's `math` beyond the spec's fields (spec 2.5
 * leaves them open): today's Kc and Ks, where the state comes from, and every
 * catalog choice behind TAW, RAW, Kc and the run length with its source, so a
 * user can check each number.
 */
export function soilMath(p: ZonePlan, ctx: EngineContext): Record<string, unknown> {
  const z = p.zone;
  if (!z.complete || !p.start) return { catalog: null, ks: null, depletion_source: null };
  const species = SPECIES_CATALOG[z.species];
  const soil = SOIL_CATALOG[z.soil_texture];
  const sun = SUN_CATALOG[z.config.sun_exposure ?? DEFAULT_SUN_EXPOSURE];
  const sprinkler = z.config.sprinkler_type ? SPRINKLER_CATALOG[z.config.sprinkler_type] : null;
  const state = p.start.today;
  const exact = state.hi - state.lo <= 1e-9;
  return {
    ks: exact ? round(waterStressCoefficient(state.lo, z.capacity), 3) : null,
    depletion_source: p.start.origin,
    range_reason: exact ? null : (state.reason ?? 'start_unknown'),
    range_since: exact ? null : state.since,
    declared_today: p.start.declared_today,
    next_session_depletion_mm: p.due_today ? round(p.due_today.projected_lo) : null,
    catalog: {
      kc: { value: kcOf(z, ctx.cal.today, ctx.lat), species: z.species, source: species.sources.kc },
      root_depth_mm: {
        value: z.capacity.root_depth_mm,
        from: z.capacity.root_depth_source,
        source:
          z.capacity.root_depth_source === 'zone' ? 'zone root_depth_mm' : species.sources.root_depth_mm,
      },
      mad: {
        value: z.capacity.mad,
        from: z.capacity.mad_source,
        source: z.capacity.mad_source === 'zone' ? 'zone mad_pct_override' : species.sources.mad,
      },
      field_capacity: { value: z.capacity.field_capacity, source: soil.sources.water },
      wilting_point: { value: z.capacity.wilting_point, source: soil.sources.water },
      infiltration_mm_hr: { value: soil.infiltration_mm_hr, source: soil.sources.infiltration },
      sun_factor: { value: z.sun_factor, exposure: sun.exposure, source: sun.source },
      precip_rate_mm_hr: {
        value: z.precip_rate_mm_hr,
        from: z.precip_rate_source,
        source:
          z.precip_rate_source === 'zone' || !sprinkler
            ? 'zone precip_rate_mm_hr'
            : sprinkler.sources.precip_rate,
      },
      rain_cap_mm: { value: round(z.rain_cap_mm), inferred: z.rain_cap_inferred },
      capture_efficiency: { value: ctx.capture_efficiency, source: 'engine.capture_efficiency' },
    },
  };
}
