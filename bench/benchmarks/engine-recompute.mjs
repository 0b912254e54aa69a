import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { percentile, REPO_ROOT } from '../lib/harness.mjs';

/**
 * In-process: the compiled pure irrigation engine (`computeIrrigation`) on one
 * realistic EngineInput, as IrrigationService.gather() would assemble it:
 *
 * - config: 50 zones cycling through every species, soil texture, sprinkler
 *   type and sun exposure, alternately soil model and weekly budget; a default
 *   dry_run controller; Orlando with its time zone.
 * - forecast: the demo provider (synthetic, deterministic) at a pinned clock,
 *   3 past days and 10 ahead, split at the local day start like
 *   ForecastService.snapshot().
 * - weather: the demo replay's values at "now", through buildWeatherSnapshot,
 *   and the matching current_weather samples.
 * - runs: 15 days of completed `manual` runs spread over the zones; gauge rain
 *   for the last few local days; neutral controls; an untrained bias.
 * - soil: the persisted soil ledger as the service hands it to the engine
 *   (tonight's closing states and 31 days of rows per zone), built by the
 *   real weather record (92 days backfilled from the demo provider) and soil
 *   ledger modules over an in-memory database before timing starts.
 *
 * The output is checked once (irrigationSnapshotSchema, 50 zones, 7 plan days),
 * then the full recompute is timed. Memory: the retained heap of the engine
 * output the service keeps (`latest`), per zone, from N outputs held for 50
 * zones against N for 10 zones, after a forced GC; and the JSON size. Objects
 * the output shares with its input (current_weather) are not counted.
 *
 * The demo climate storms every third day, so every verdict of the week is a
 * skip; zones are still planned through every gate (a dry forecast, where
 * zones water, measured within a few ms of this one).
 */

const ZONES = 50;
const SMALL_ZONES = 10;
const WARMUP = 20;
const ITERATIONS = 200;
const HELD_OUTPUTS = 20;
const HEAP_ROUNDS = 3;
const RUN_DAYS = 15;
const GAUGE_DAYS = 4;
const TZ = 'America/New_York';
const LOCATION = { lat: 28.5383, lon: -81.3792, elevation_m: 30 };
/** 2025-06-16 05:30 EDT: a June morning before the run window. */
const NOW_MS = Date.UTC(2025, 5, 16, 9, 30);
const NOW = NOW_MS / 1000;

const requireDist = createRequire(join(REPO_ROOT, 'dist/server/src/main.js'));

function loadDist() {
  try {
    const schema = requireDist('./config/schema.js');
    return {
      computeIrrigation: requireDist('./irrigation/engine/engine.js').computeIrrigation,
      irrigationSnapshotSchema: requireDist('./irrigation/snapshot-schema.js').irrigationSnapshotSchema,
      configSchema: schema.configSchema,
      SPECIES: schema.SPECIES,
      SOIL_TEXTURES: schema.SOIL_TEXTURES,
      SPRINKLER_TYPES: schema.SPRINKLER_TYPES,
      SUN_EXPOSURES: schema.SUN_EXPOSURES,
      DemoForecastProvider: requireDist('./forecast/providers/demo.js').DemoForecastProvider,
      ManualClock: requireDist('./core/clock.js').ManualClock,
      buildWeatherSnapshot: requireDist('./weather/snapshot.js').buildWeatherSnapshot,
      FIELD_SPECS: requireDist('./weather/fields.js').FIELD_SPECS,
      demoWeatherAt: requireDist('./weather/sources/demo/demo-replay.js').demoWeatherAt,
      neutralControls: requireDist('./irrigation/controls/types.js').neutralControls,
      Store: requireDist('./store/store.js').Store,
      EventBus: requireDist('./core/bus.js').EventBus,
      silentLogger: requireDist('./core/logger.js').silentLogger,
      WeatherRecordService: requireDist('./weather-record/weather-record-service.js').WeatherRecordService,
      SoilLedgerService: requireDist('./irrigation/soil/soil-ledger-service.js').SoilLedgerService,
      DateTime: requireDist('luxon').DateTime,
    };
  } catch (err) {
    throw new Error(`cannot load the compiled engine (run \`npm run build\` first): ${err.message}`, {
      cause: err,
    });
  }
}

const slugOf = (i) => `zone_${String(i + 1).padStart(2, '0')}`;

function configDoc(dist, zoneCount) {
  const zones = {};
  for (let i = 0; i < zoneCount; i++) {
    const weekly = i % 2 === 1;
    zones[slugOf(i)] = {
      display_name: `Zone ${i + 1}`,
      species: dist.SPECIES[i % dist.SPECIES.length],
      soil_texture: dist.SOIL_TEXTURES[i % dist.SOIL_TEXTURES.length],
      sprinkler_type: dist.SPRINKLER_TYPES[i % dist.SPRINKLER_TYPES.length],
      sun_exposure: dist.SUN_EXPOSURES[i % dist.SUN_EXPOSURES.length],
      area_sqft: 200 + ((i * 137) % 3000),
      controller_id: 'bench_controller',
      controller_station: String(i + 1),
      max_run_minutes: i % 5 === 0 ? 30 : null,
      scheduling_model: weekly ? 'weekly' : 'soil',
      ...(weekly ? { weekly_budget_in: 0.75 + (i % 4) * 0.25, sessions_per_week: 2 + (i % 3) } : {}),
    };
  }
  return {
    schema_version: 2,
    deployment: { location: LOCATION, timezone: TZ, display_name: 'Raincheck bench yard' },
    sources: [{ id: 'demo', priority: 100, kind: 'demo_replay', config: {} }],
    controllers: [{ id: 'bench_controller', default: true, kind: 'dry_run', config: {} }],
    zones,
  };
}

/** The merged forecast as ForecastService.snapshot() serves it: split at the local day start. */
async function forecastSnapshot(dist) {
  const provider = new dist.DemoForecastProvider('demo', new dist.ManualClock(NOW_MS));
  const forecast = await provider.fetch({
    lat: LOCATION.lat,
    lon: LOCATION.lon,
    elevationM: LOCATION.elevation_m,
    timezone: TZ,
    pastDays: 3,
    forecastDays: 10,
  });
  const todayStart = dist.DateTime.fromSeconds(NOW, { zone: TZ }).startOf('day').toSeconds();
  return {
    last_refresh_epoch: forecast.fetched_at,
    source_reachable: true,
    source_label: provider.label,
    source_is_backup: false,
    timezone: TZ,
    daily: forecast.daily.filter((d) => d.time_epoch >= todayStart),
    past_daily: forecast.daily.filter((d) => d.time_epoch < todayStart),
    hourly: forecast.hourly.filter((h) => h.time_epoch >= todayStart),
  };
}

/** The demo replay's readings at "now", observed a minute ago, as the merge would select them. */
function weather(dist) {
  const observed = NOW - 60;
  const values = dist.demoWeatherAt(observed, TZ);
  const selections = new Map();
  for (const [field, value] of Object.entries(values)) {
    const spec = dist.FIELD_SPECS[field];
    if (!spec) continue;
    selections.set(field, {
      field,
      value,
      sourceId: 'demo',
      observedEpoch: observed,
      maxAgeS: spec.maxAgeS,
      reason: 'priority',
    });
  }
  const snapshot = dist.buildWeatherSnapshot({
    selections,
    lastPacketEpoch: observed,
    pressureTrend: [29.96, 29.97, 29.97],
    lightningRecent: [],
    lastStrike: null,
    stationSerial: null,
    hubSerial: null,
    labels: new Map([['demo', 'Demo weather']]),
    stations: new Set(['demo']),
  });
  const current = {};
  for (const [field, s] of selections) {
    current[field] = {
      value: s.value,
      source_id: s.sourceId,
      observed_epoch: s.observedEpoch,
      max_age_s: s.maxAgeS,
      measured: false,
      selection_reason: s.reason,
    };
  }
  return { snapshot, current };
}

/** Completed manual runs over the last 15 days: each zone every 2-4 days, staggered through the morning. */
function runs(dist, zoneCount) {
  const dayStart = dist.DateTime.fromSeconds(NOW, { zone: TZ }).startOf('day').toSeconds();
  const out = [];
  for (let i = 0; i < zoneCount; i++) {
    const every = 2 + (i % 3);
    for (let d = RUN_DAYS - (i % every); d >= 1; d -= every) {
      out.push({
        session_id: `s-${d}`,
        zone: slugOf(i),
        start_epoch: dayStart - d * 86400 + 5 * 3600 + i * 600,
        duration_s: 600 + (i % 4) * 300,
        skip_reason: null,
        source: 'manual',
        status: 'completed',
        controller_id: 'bench_controller',
        applied_mm: null,
        volume_gal: null,
        note: null,
        cycle_index: null,
        cycle_count: null,
      });
    }
  }
  return out.sort((a, b) => a.start_epoch - b.start_epoch);
}

function gaugeDailyRain(dist) {
  const today = dist.DateTime.fromSeconds(NOW, { zone: TZ }).startOf('day');
  const rain = [0, 0.42, 0.05, 0];
  const out = new Map();
  for (let d = 1; d <= GAUGE_DAYS; d++) out.set(today.minus({ days: d }).toISODate(), rain[d - 1] ?? 0);
  return out;
}

/** The soil ledger as IrrigationService.gather() reads it: the real record and ledger modules, in memory. */
async function soilView(dist, config, runRows) {
  const clock = new dist.ManualClock(NOW_MS);
  const logger = dist.silentLogger();
  const store = dist.Store.open(':memory:', logger);
  for (const run of runRows) store.runs.insert(run);
  const applied = { config, document: {}, appliedAtEpoch: 0, revision: 1 };
  const provider = new dist.DemoForecastProvider('demo', clock);
  const bus = new dist.EventBus();
  const record = new dist.WeatherRecordService({
    bus,
    clock,
    logger,
    config: () => applied,
    store,
    forecast: {
      snapshot: () => ({ past_daily: [], source_label: provider.label }),
      history: async (pastDays) => {
        const forecast = await provider.fetch({
          lat: LOCATION.lat,
          lon: LOCATION.lon,
          elevationM: LOCATION.elevation_m,
          timezone: TZ,
          pastDays,
          forecastDays: 1,
        });
        return { provider: provider.label, days: forecast.daily };
      },
    },
    modelledKinds: new Set(['demo_replay']),
  });
  await record.start();
  record.backfillSoon(0);
  await record.settled();
  const ledger = new dist.SoilLedgerService({ bus, logger, config: () => applied, store, record });
  const view = ledger.current(NOW);
  store.close();
  return view;
}

async function engineInput(dist, zoneCount, shared) {
  const config = dist.configSchema.parse(configDoc(dist, zoneCount));
  const runRows = runs(dist, zoneCount);
  return {
    nowEpoch: NOW,
    config,
    timezone: TZ,
    weather: shared.weather.snapshot,
    currentWeather: shared.weather.current,
    forecast: shared.forecast,
    bias: { multiplier: 1, sample_count: 0, trained: false },
    runs: runRows,
    gaugeDailyRain: gaugeDailyRain(dist),
    controls: dist.neutralControls(),
    soil: await soilView(dist, config, runRows),
    controlsPersisted: true,
  };
}

function check(dist, output, zoneCount) {
  const parsed = dist.irrigationSnapshotSchema.safeParse(output.snapshot);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.')}: ${i.message}`)
      .join('; ');
    throw new Error(`the engine output does not validate against irrigationSnapshotSchema: ${issues}`);
  }
  const s = output.snapshot;
  const planZones = s.water_plan.map((d) => d.zones.length);
  if (s.zones.length !== zoneCount || s.water_plan.length !== 7 || planZones.some((n) => n !== zoneCount)) {
    throw new Error(
      `expected ${zoneCount} zones and 7 plan days of ${zoneCount} zones, got ${s.zones.length} zones ` +
        `and ${s.water_plan.length} plan days (${planZones.join('/')})`,
    );
  }
}

function exposeGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/** used_heap_size after full collections (twice: weak callbacks and finalizers may free more). */
function settledHeap(gc) {
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size;
}

/** Heap retained by HELD_OUTPUTS engine outputs of one input, above the heap without them. */
function retainedByOutputs(dist, gc, input) {
  const before = settledHeap(gc);
  const held = [];
  for (let k = 0; k < HELD_OUTPUTS; k++) held.push(dist.computeIrrigation(input));
  const after = settledHeap(gc);
  // A use after the measurement: the outputs stay reachable until it is taken.
  held.length = 0;
  return after - before;
}

const median = (list) => percentile(list, 50);
const fmtMs = (v) => `${v.toFixed(3)} ms`;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

export default {
  name: 'engine-recompute',
  title:
    `Irrigation engine in-process: full recompute (computeIrrigation) for ${ZONES} zones, ` +
    `soil + weekly, with the 7-day plan; ${ITERATIONS} runs after ${WARMUP} warm-up; retained output per zone`,
  budget: { metric: 'median full recompute', better: 'lower', limit: 10, unit: 'ms' },

  async run(report) {
    const dist = loadDist();
    const shared = { forecast: await forecastSnapshot(dist), weather: weather(dist) };
    const input = await engineInput(dist, ZONES, shared);
    const small = await engineInput(dist, SMALL_ZONES, shared);
    report(
      'input',
      `${ZONES} zones (${Object.values(input.config.zones).filter((z) => z.scheduling_model === 'weekly').length} weekly), ` +
        `${input.runs.length} run records, forecast ${shared.forecast.past_daily.length} past + ` +
        `${shared.forecast.daily.length} days / ${shared.forecast.hourly.length} hours, ` +
        `gauge ${input.gaugeDailyRain.size} days, soil ledger ${[...input.soil.zones.values()].reduce((n, z) => n + z.rows.length, 0)} rows ` +
        `(${input.soil.weather.length} record days)`,
    );

    const first = dist.computeIrrigation(input);
    check(dist, first, ZONES);
    check(dist, dist.computeIrrigation(small), SMALL_ZONES);
    const planned = first.snapshot.water_plan.map((d) => d.zones.filter((z) => z.planned_seconds > 0).length);
    report(
      'output',
      `verdict ${first.verdict}; schema valid, ${first.snapshot.zones.length} zones, ` +
        `${first.snapshot.water_plan.length} plan days; zones watering per day ${planned.join('/')}`,
    );
    report('node flags', process.execArgv.length > 0 ? process.execArgv.join(' ') : '(none)');

    for (let k = 0; k < WARMUP; k++) dist.computeIrrigation(input);
    const times = [];
    for (let k = 0; k < ITERATIONS; k++) {
      const start = performance.now();
      dist.computeIrrigation(input);
      times.push(performance.now() - start);
    }
    const p50 = median(times);
    report(
      'recompute',
      `n ${times.length}, p50 ${fmtMs(p50)}, p95 ${fmtMs(percentile(times, 95))}, ` +
        `max ${fmtMs(Math.max(...times))} (budget: median < 10 ms)`,
    );
    report('per zone', `${fmtMs(p50 / ZONES)} at the median`);

    const gc = exposeGc();
    const per50 = [];
    const per10 = [];
    for (let r = 0; r < HEAP_ROUNDS; r++) {
      per10.push(retainedByOutputs(dist, gc, small) / HELD_OUTPUTS);
      per50.push(retainedByOutputs(dist, gc, input) / HELD_OUTPUTS);
    }
    const out50 = median(per50);
    const out10 = median(per10);
    const perZone = (out50 - out10) / (ZONES - SMALL_ZONES);
    report(
      'retained output',
      `${kib(out50)} per ${ZONES}-zone output, ${kib(out10)} per ${SMALL_ZONES}-zone output ` +
        `(median of ${HEAP_ROUNDS} rounds of ${HELD_OUTPUTS} held outputs each, after gc)`,
    );
    report(
      'retained per zone',
      `${kib(perZone)} per zone per snapshot ((${ZONES}-zone - ${SMALL_ZONES}-zone) / ${ZONES - SMALL_ZONES}); ` +
        `fixed part ${kib(out10 - SMALL_ZONES * perZone)}`,
    );

    const json50 = Buffer.byteLength(JSON.stringify(first.snapshot));
    const json10 = Buffer.byteLength(JSON.stringify(dist.computeIrrigation(small).snapshot));
    report(
      'snapshot JSON',
      `${kib(json50)} for ${ZONES} zones (${kib(json50 / ZONES)} per zone on average), ` +
        `${kib(json10)} for ${SMALL_ZONES}; marginal ${kib((json50 - json10) / (ZONES - SMALL_ZONES))} per zone`,
    );

    return {
      value: p50,
      display: `p50 ${fmtMs(p50)}, ${kib(perZone)} retained / ${kib((json50 - json10) / (ZONES - SMALL_ZONES))} JSON per zone`,
    };
  },
};
