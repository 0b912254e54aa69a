import { buildMathChain } from '../../web/app/pages/zone/math-chain';
import type {
  IrrigationSnapshot,
  TraceZone,
  WaterPlanZone,
  Zone,
} from '../../web/app/pages/zones/irrigation-types';
import type { Format } from '../../web/app/pages/zones/zone-model';

const fmt: Format = (q, v) => (v === null || v === undefined ? '—' : `${Number(v.toFixed(2))} mm`);

const inputs: TraceZone['inputs'] = {
  species: 'st_augustine',
  soil_texture: 'sand',
  sprinkler_type: 'rotor',
  sun_factor: 1,
  precip_rate_source: 'catalog',
  root_depth_mm: 150,
  mad: 0.5,
  mad_source: 'species',
  rain_cap_mm: 11.25,
  rain_cap_inferred: true,
  max_run_minutes: 60,
  capture_efficiency: 0.7,
};

function setup(
  over: { zone?: Partial<Zone>; trace?: Partial<TraceZone>; plan?: Partial<WaterPlanZone> } = {},
) {
  const zone: Zone = {
    name: 'Front lawn',
    slug: 'front_lawn',
    running: false,
    running_known: true,
    planned_run_seconds: 0,
    bucket_mm: -3.11,
    throughput_mm_hr: 12.7,
    math: {
      bucket_mm: -3.11,
      kc: 0.58,
      cap_binding: false,
      taw_mm: 11.25,
      raw_mm: 5.63,
      throughput_known: true,
      cycle_count: 0,
      cycles_s: [],
      soak_s: null,
    },
    ...over.zone,
  };
  const snapshot: IrrigationSnapshot = {
    last_refresh_epoch: 1,
    zones: [zone],
    decision_trace: {
      date_local: '2026-11-21',
      zones: {
        front_lawn: {
          model: 'soil',
          inputs,
          kc_today: 0.58,
          steps: [
            {
              date_local: '2026-11-21',
              kind: 'past',
              et0_mm: 9,
              kc: 0.58,
              etc_mm: 9,
              rain_mm: 9,
              rain_credited_mm: 9,
              net_irrigation_mm: 0,
              depletion_mm: 9,
              depletion_range_mm: null,
            },
            {
              date_local: '2026-11-21',
              kind: 'projected',
              et0_mm: 2.61,
              et0_method: 'penman_monteith',
              kc: 0.58,
              etc_mm: 1.51,
              rain_mm: 14.22,
              rain_source: 'forecast',
              rain_credited_mm: 11.25,
              net_irrigation_mm: 0,
              depletion_mm: 0,
              depletion_range_mm: null,
            },
          ],
          forecast_credit_mm: 0,
          forecast_credit_source: 'none',
          ...over.trace,
        },
      },
    },
    water_plan: [
      {
        date_local: '2026-11-21',
        day_offset: 0,
        time_epoch: 0,
        start_epoch: null,
        finish_epoch: null,
        forecast_rain_mm: null,
        expected_rain_mm: null,
        rain_probability_pct: null,
        evidence_complete: true,
        zones: [
          {
            zone: 'front_lawn',
            name: 'Front lawn',
            reason: 'depletion 3.1 mm is below the trigger (RAW 5.6 mm)',
            reason_code: 'not_due',
            water_need: 'low',
            planned_seconds: 0,
            depletion_mm: 3.11,
            trigger_mm: 5.63,
            capacity_mm: 11.25,
            uncapped_seconds: 0,
            ...over.plan,
          },
        ],
      },
    ],
  };
  return { zone, snapshot };
}

const value = (chain: ReturnType<typeof buildMathChain>, key: string) =>
  chain.rows.find((r) => r.key === key);

describe('buildMathChain (soil model)', () => {
  it('lays out the FAO-56 chain from today’s projected step and the zone math', () => {
    const { zone, snapshot } = setup();
    const chain = buildMathChain(zone, snapshot, fmt);
    expect(chain.model).toBe('soil');
    expect(chain.rows.map((r) => r.key)).toEqual([
      'et0',
      'kc',
      'etc',
      'rain',
      'rain_credit',
      'forecast_credit',
      'depletion',
      'taw',
      'raw',
      'trigger',
      'throughput',
      'uncapped',
      'cap',
      'cycles',
      'planned',
    ]);
    expect(value(chain, 'et0')).toMatchObject({ value: '2.61 mm', note: 'FAO-56 Penman-Monteith' });
    expect(value(chain, 'kc')).toMatchObject({ value: '0.58', note: 'St. Augustinegrass' });
    expect(value(chain, 'etc')?.value).toBe('1.51 mm');
    expect(value(chain, 'rain')).toMatchObject({ value: '14.22 mm', note: 'from forecast' });
    expect(value(chain, 'rain_credit')).toMatchObject({
      value: '11.25 mm',
      note: 'at most 11.25 mm a day (from soil and roots)',
    });
    expect(value(chain, 'depletion')?.value).toBe('3.11 mm');
    expect(value(chain, 'taw')).toMatchObject({ value: '11.25 mm', note: 'Sand, roots 150 mm' });
    expect(value(chain, 'raw')).toMatchObject({ value: '5.63 mm', note: 'MAD 50% (species)' });
    expect(value(chain, 'trigger')?.value).toBe('no');
    expect(value(chain, 'throughput')).toMatchObject({
      value: '12.7 mm/h',
      note: 'Rotor, catalog, 70% capture efficiency',
    });
    expect(value(chain, 'cap')).toMatchObject({ value: '60 min', note: 'not binding' });
    expect(value(chain, 'planned')).toMatchObject({
      value: 'none',
      note: 'depletion 3.1 mm is below the trigger (RAW 5.6 mm)',
    });
    expect(chain.sentence).toBe(
      'Plants here use about 1.51 mm of water today (ET₀ 2.61 mm × Kc 0.58). The soil is 3.11 mm below full. The root zone holds 11.25 mm; it is watered once 5.63 mm is used up. So no water is planned today: depletion 3.1 mm is below the trigger (RAW 5.6 mm).',
    );
  });

  it('describes a planned run with cycles, soak and a binding cap', () => {
    const { zone, snapshot } = setup({
      zone: {
        planned_run_seconds: 3600,
        math: {
          bucket_mm: -9,
          kc: 0.58,
          cap_binding: true,
          cap_shortfall_mm: 2.4,
          taw_mm: 11.25,
          raw_mm: 5.63,
          cycle_count: 2,
          cycles_s: [1800, 1800],
          soak_s: 1800,
        },
      },
      plan: {
        planned_seconds: 3600,
        uncapped_seconds: 4000,
        reason: 'due: 9.0 mm; 3600 s',
        session_capped: true,
      },
    });
    const chain = buildMathChain(zone, snapshot, fmt);
    expect(value(chain, 'trigger')?.value).toBe('yes');
    expect(value(chain, 'uncapped')?.value).toBe('1 h 7 min');
    expect(value(chain, 'cap')?.note).toBe('binding: the cap set today’s minutes, leaving 2.4 mm out');
    expect(value(chain, 'cycles')).toMatchObject({
      value: '2 × 30 min + 30 min',
      note: '30 min soak between cycles',
    });
    expect(value(chain, 'planned')).toMatchObject({ value: '1 h 0 min', note: 'due: 9.0 mm' });
    expect(chain.sentence).toContain(
      'So Raincheck plans 1 h 0 min in 2 cycles with 30 min soaks at 12.7 mm/h, held to the 60-minute cap (due: 9.0 mm).',
    );
  });

  it('shows unknown terms as unknown, never as 0', () => {
    const { zone, snapshot } = setup({
      zone: {
        bucket_mm: null,
        math: {
          bucket_mm: null,
          kc: 0,
          cap_binding: false,
          taw_mm: null,
          raw_mm: null,
          throughput_known: false,
        },
      },
      trace: { inputs: { ...inputs, mad: null }, steps: [], kc_today: null },
      plan: { uncapped_seconds: undefined, reason: 'zone settings incomplete' },
    });
    const chain = buildMathChain(zone, snapshot, fmt);
    for (const key of [
      'et0',
      'kc',
      'etc',
      'rain',
      'depletion',
      'taw',
      'raw',
      'trigger',
      'throughput',
      'uncapped',
    ])
      expect([key, value(chain, key)?.value]).toEqual([key, null]);
    expect(value(chain, 'kc')?.note).toBe('zone settings incomplete');
    expect(chain.sentence).toBe(
      'Today’s water use is unknown (ET₀ or Kc is missing). How dry the soil is is unknown. So no water is planned today: zone settings incomplete.',
    );
  });

  it('gives the proven range when the exact depletion is unknown', () => {
    const { zone, snapshot } = setup({
      zone: {
        bucket_mm: null,
        math: {
          bucket_mm: null,
          kc: 0.58,
          cap_binding: false,
          taw_mm: 24,
          raw_mm: 12,
          depletion_range_mm: [3.11, 5.54],
        },
      },
    });
    const chain = buildMathChain(zone, snapshot, fmt);
    expect(value(chain, 'depletion')).toMatchObject({
      value: '3.11 mm – 5.54 mm',
      note: 'only a range is known',
    });
    expect(value(chain, 'trigger')?.value).toBeNull();
    expect(chain.sentence).toContain('only known to lie between 3.11 mm and 5.54 mm below full');
  });
});

describe('buildMathChain (weekly model)', () => {
  it('shows the budget terms instead of the bucket', () => {
    const { zone, snapshot } = setup({
      trace: {
        model: 'weekly',
        weekly: {
          budget: {
            target_mm: 25,
            needed_mm: 10,
            mm_per_session: 5,
            remaining_sessions: 2,
            observed_rain_credited_mm: 12,
            applied_mm: 3,
          },
        },
      },
    });
    const chain = buildMathChain(zone, snapshot, fmt);
    expect(chain.model).toBe('weekly');
    expect(chain.rows.map((r) => r.key)).toContain('target');
    expect(chain.rows.map((r) => r.key)).not.toContain('depletion');
    expect(value(chain, 'needed')?.value).toBe('10 mm');
    expect(value(chain, 'per_session')).toMatchObject({ value: '5 mm', note: '2 session(s) left' });
  });
});
