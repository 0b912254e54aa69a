import { DateTime } from 'luxon';
import type { RaincheckConfig } from '../config/schema';
import { ControllerManager } from '../controllers/controller-manager';
import { builtinControllerKinds } from '../controllers/index';
import { EventBus } from '../core/bus';
import type { Clock } from '../core/clock';
import { silentLogger } from '../core/logger';
import { zoneFor } from '../core/tz/zone';
import { Dispatcher, type RunMeter } from '../irrigation/dispatch/dispatcher';
import type { ValveDriver } from '../irrigation/dispatch/driver';
import { RunLedger } from '../irrigation/dispatch/run-ledger';
import { Scheduler } from '../irrigation/dispatch/scheduler';
import { restrictionGateOf } from '../irrigation/dispatch/restriction-source';
import { untrainedBias } from '../forecast/bias';
import { computeIrrigation } from '../irrigation/engine/engine';
import { IrrigationService } from '../irrigation/irrigation-service';
import type { IrrigationSnapshot } from '../irrigation/snapshot-schema';
import { SoilLedgerService } from '../irrigation/soil/soil-ledger-service';
import { soilProbes } from '../irrigation/soil/soil-probes';
import { timezoneAt } from '../location/timezone';
import { Store } from '../store/store';
import { BACKFILL_DAYS, WeatherRecordService } from '../weather-record/weather-record-service';
import { acceptRecommendations, type AcceptedRecommendation } from './accept-recommendations';
import { SeasonConfig } from './season-config';
import { SeasonWeather, type ForecastMode } from './season-weather';

/**
 * A season replay: the real service modules (weather record, soil ledger,
 * irrigation service and engine, run-window scheduler, dispatcher, run ledger,
 * controller manager with a dry-run controller) on a simulated clock, fed a
 * station file day by day.
 *
 * - The clock and every timer are simulated (@sinonjs/fake-timers): a run of
 *   30 minutes takes no time, and the modules' own timers fire as they would.
 * - The dry-run controller's runs count as delivered water here (its routes
 *   are reported as real): the replay asks what the soil would have received.
 *   With `demoYard` the replay is the live demo instead: the config keeps
 *   `features.demo_mode`, the routes stay simulated, and the runs water the
 *   yard only as the demo's do (evidence `simulated`).
 * - Each day: just after midnight the record and the ledger close yesterday;
 *   at the run window the engine decides and the scheduler runs the session;
 *   the day's line is written once the ledger has closed it.
 * - `restartOn`: on those dates, at 00:05, the service is dropped without a
 *   stop (as a kill -9 would) and rebuilt from the same database file.
 * - The yard's own instruments, for replays that judge what the service
 *   learns from them: `meter` measures each run as a flow meter would (the
 *   run rows become `metered`), and `atDayStart` is called at 00:05 of each
 *   day with the store, where a replay's soil probe writes its reading of
 *   the night (the soil ledger anchors the day on it).
 */

export interface SeasonLine {
  date: string;
  zone: string;
  taw_mm: number;
  raw_mm: number;
  kc: number;
  sun_factor: number;
  ks: number | null;
  et0_mm: number | null;
  et0_method: string | null;
  etc_mm: number | null;
  rain_mm: number | null;
  rain_source: string;
  rain_credited_mm: number | null;
  irrigation_seconds: number;
  irrigation_gross_mm: number;
  irrigation_net_mm: number;
  irrigation_evidence: string;
  drainage_mm: number | null;
  /** Start-of-day depletion (the previous day's closing), exact or null. */
  start_depletion_mm: number | null;
  start_depletion_range_mm: [number, number] | null;
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  range_reason: string | null;
  /** The engine's decision at the day's run window. */
  reason_code: string;
  planned_seconds: number;
  session_capped: boolean;
  reason: string;
  /** The zone's water budget row at the run window: forecast rain credited in sizing, and its source. */
  forecast_credit_mm: number | null;
  forecast_credit_source: string | null;
  /** The zone's stress allowance (`zones[].math.allowance_mm`); null while the engine reports none. */
  allowance_mm: number | null;
}

export interface SeasonOptions {
  days: import('./wth').WthDay[];
  /** The config to run (zones, engine settings); location and controllers are set by the replay. */
  config: RaincheckConfig;
  lat: number;
  lon: number;
  elevation_m: number;
  from: string;
  to: string;
  forecast: ForecastMode;
  /** The replay's database file (a fresh path: the replay starts from an empty install). */
  dbPath: string;
  restartOn?: readonly string[];
  onLine?: (line: SeasonLine) => void;
  /** A flow meter on the zones' runs (the dispatcher asks it for each run's volume). */
  meter?: RunMeter;
  /** Called at 00:05 local of each day, before the day's ledger update. */
  atDayStart?: (day: { date: string; epoch: number; store: Store }) => void;
  /** Run as the live demo does (demo mode kept, dry-run routes left simulated). */
  demoYard?: boolean;
  /**
   * Wire the soil probes as main.ts does (irrigation/soil/soil-probes.ts): bound probes
   * hold wet zones, and probes calibrated in the store reconcile the ledger. Off by
   * default, so a replay's probe readings are only read where it asks.
   */
  soilProbes?: boolean;
  /** An owner who applies each tuning recommendation on the day it appears. */
  acceptRecommendations?: boolean;
  onAccepted?: (accepted: AcceptedRecommendation) => void;
}

type FakeClock = import('@sinonjs/fake-timers').Clock;

const CONTROLLER_ID = 'season';
/** The simulated clock's step while a session runs (the scheduler reacts to run ends at once). */
const SESSION_STEP_MS = 600_000;

export async function runSeason(options: SeasonOptions): Promise<SeasonLine[]> {
  const base = seasonConfig(options);
  const timezone = base.deployment.timezone as string;
  const zone = zoneFor(timezone);
  const startMs = DateTime.fromISO(options.from, { zone }).plus({ minutes: 10 }).toMillis();
  const FakeTimers = (await import('@sinonjs/fake-timers')).default;
  const fake = FakeTimers.withGlobal(globalThis).install({
    now: startMs,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  const lines: SeasonLine[] = [];
  try {
    const clock: Clock = { nowMs: () => fake.now };
    const config = new SeasonConfig(base, clock);
    const weather = new SeasonWeather(options.days, timezone, options.forecast);
    let service = await boot(options, config, clock, weather, fake);
    const decisions = new Map<string, DayDecision>();
    for (let date = options.from; date <= nextDate(options.to, zone); date = nextDate(date, zone)) {
      const midnight = DateTime.fromISO(date, { zone });
      await fake.tickAsync(Math.max(0, midnight.plus({ minutes: 5 }).toMillis() - fake.now));
      if (options.restartOn?.includes(date)) service = await boot(options, config, clock, weather, fake);
      options.atDayStart?.({ date, epoch: Math.floor(fake.now / 1000), store: service.store });
      await fake.tickAsync(Math.max(0, midnight.plus({ minutes: 10 }).toMillis() - fake.now));
      service.irrigation.refresh();
      const closed = midnight.minus({ days: 1 }).toISODate() ?? '';
      for (const line of closedDayLines(service, closed, decisions.get(closed))) {
        lines.push(line);
        options.onLine?.(line);
      }
      if (date > options.to) break;
      if (options.acceptRecommendations) {
        const store = service.store;
        for (const accepted of await acceptRecommendations({ store, clock, config, timezone, date }))
          options.onAccepted?.(accepted);
      }
      decisions.set(date, await runDay(service, fake, clock));
    }
  } finally {
    fake.uninstall();
  }
  return lines;
}

/** The run window's decision per zone: the plan's row, and the snapshot's figures for the line. */
interface DayDecision {
  plans: IrrigationSnapshot['water_plan'][number]['zones'];
  figures: Map<string, ZoneFigures>;
}

type ZoneFigures = Pick<SeasonLine, 'forecast_credit_mm' | 'forecast_credit_source' | 'allowance_mm'>;

interface Service {
  store: Store;
  irrigation: IrrigationService;
  scheduler: Scheduler;
  soil: SoilLedgerService;
}

async function boot(
  options: SeasonOptions,
  settings: SeasonConfig,
  clock: Clock,
  weather: SeasonWeather,
  fake: FakeClock,
): Promise<Service> {
  const logger = silentLogger();
  const store = Store.open(options.dbPath, logger);
  // A replay's database is scratch: commits need not reach the disk (the dispatch heartbeat
  // alone commits every 5 simulated seconds while a valve is open).
  store.db.pragma('synchronous = OFF');
  const bus = new EventBus();
  settings.bus = bus;
  const applied = () => settings.current;
  const config = settings.current.config;
  const now = () => Math.floor(clock.nowMs() / 1000);
  const today = () =>
    DateTime.fromSeconds(now(), { zone: zoneFor(config.deployment.timezone as string) }).toISODate() ?? '';
  const record = new WeatherRecordService({
    bus,
    clock,
    logger,
    config: applied,
    store,
    forecast: {
      snapshot: () => weather.forecastAt(now()),
      history: async (pastDays) => ({
        provider: 'Season file',
        days: weather.history(now(), Math.min(pastDays, BACKFILL_DAYS)),
      }),
    },
    modelledKinds: new Set(),
    stationDays: (dates) => weather.stationDays(dates, today()),
  });
  await record.start();
  // The backfill waits on a (simulated) timer: let the simulated clock run it.
  record.backfillSoon(0);
  let backfilled = false;
  void record.settled().then(() => (backfilled = true));
  while (!backfilled) await fake.tickAsync(0);
  const probes = options.soilProbes ? soilProbes(store) : null;
  const soil = new SoilLedgerService({
    bus,
    logger,
    config: applied,
    store,
    record,
    ...(probes ? { probeCalibration: (id: string) => probes.calibrations.get(id) } : {}),
  });
  await soil.start();
  let dispatcher: Dispatcher | null = null;
  const controllers = new ControllerManager({
    bus,
    clock,
    logger,
    config: applied,
    kinds: builtinControllerKinds(),
    fetch,
    ha: () => null,
    forceDryRun: false,
    busyControllers: () => dispatcher?.busyControllers() ?? new Set(),
  });
  await controllers.start();
  const driver = options.demoYard ? controllers : delivered(controllers);
  const ledger = new RunLedger(store.runs);
  dispatcher = new Dispatcher({
    clock,
    logger,
    bus,
    driver,
    ledger,
    zoneConfig: (slug) => settings.current.config.zones[slug],
    state: store.controls,
    meter: options.meter ?? null,
    // The config's restrictions bind the replay's runs as they do the service's.
    restrictions: restrictionGateOf({
      config: () => config,
      runs: store.runs,
      timezone: () => config.deployment.timezone as string,
    }),
  });
  const irrigation = new IrrigationService({
    bus,
    clock,
    logger,
    config: applied,
    store,
    weather: { snapshot: () => weather.snapshotAt(now()), currentWeather: () => null },
    forecast: {
      snapshot: () => weather.forecastAt(now()),
      bias: () => untrainedBias(1),
    },
    compute: computeIrrigation,
    soil,
    probes: probes?.reader ?? null,
  });
  const scheduler = new Scheduler({
    bus,
    clock,
    logger,
    dispatcher,
    driver,
    ledger,
    snapshot: () => irrigation.snapshot(),
    state: store.controls,
    sessionPlans: store.sessionPlans,
  });
  return { store, irrigation, scheduler, soil };
}

/** The day's run window: decide, run the session on the simulated clock, answer the decision. */
async function runDay(service: Service, fake: FakeClock, clock: Clock): Promise<DayDecision> {
  const first = service.irrigation.refresh();
  const start = first?.today_window.start ?? 0;
  const nowS = Math.floor(clock.nowMs() / 1000);
  if (start > nowS) await fake.tickAsync((start - nowS) * 1000 + 1000);
  const snapshot = service.irrigation.refresh();
  const decision = { plans: snapshot?.water_plan[0]?.zones ?? [], figures: zoneFigures(snapshot) };
  const session = service.scheduler.tick();
  if (session) {
    let done = false;
    void session.finally(() => (done = true));
    for (let waited = 0; !done && waited < 86_400_000; waited += SESSION_STEP_MS) {
      await fake.tickAsync(SESSION_STEP_MS);
    }
  }
  return decision;
}

/**
 * Per zone: the water budget row's forecast credit (rows follow `zones[]`,
 * the spec names no zone key for them) and the math's allowance, read
 * defensively: a figure the snapshot does not carry is null, never a number.
 */
export function zoneFigures(snapshot: IrrigationSnapshot | null): Map<string, ZoneFigures> {
  const out = new Map<string, ZoneFigures>();
  snapshot?.zones.forEach((zone, i) => {
    const row = snapshot.water_budgets[i];
    const allowance = (zone.math as Record<string, unknown>).allowance_mm;
    out.set(zone.slug, {
      forecast_credit_mm: typeof row?.forecast_credit_mm === 'number' ? row.forecast_credit_mm : null,
      forecast_credit_source: row?.forecast_credit_source ?? null,
      allowance_mm: typeof allowance === 'number' && Number.isFinite(allowance) ? allowance : null,
    });
  });
  return out;
}

function closedDayLines(service: Service, date: string, decision: DayDecision | undefined): SeasonLine[] {
  if (!decision) return [];
  return decision.plans.flatMap((plan) => {
    const row = service.soil.rows(plan.zone, date, date)[0];
    if (!row) return [];
    const [startLo, startHi] = row.detail.start_range_mm;
    return [
      {
        date,
        zone: plan.zone,
        taw_mm: row.taw_mm,
        raw_mm: row.raw_mm,
        kc: row.kc,
        sun_factor: row.detail.sun_factor,
        ks: row.ks,
        et0_mm: row.et0_mm,
        et0_method: row.et0_method,
        etc_mm: row.etc_mm,
        rain_mm: row.rain_mm,
        rain_source: row.rain_source,
        rain_credited_mm: row.rain_credited_mm,
        irrigation_seconds: row.irrigation_seconds,
        irrigation_gross_mm: row.irrigation_gross_mm,
        irrigation_net_mm: row.irrigation_net_mm,
        irrigation_evidence: row.irrigation_evidence,
        drainage_mm: row.drainage_mm,
        start_depletion_mm: startLo === startHi ? startLo : null,
        start_depletion_range_mm: startLo === startHi ? null : [startLo, startHi],
        depletion_mm: row.depletion_mm,
        depletion_range_mm: row.depletion_range_mm,
        range_reason: row.range_reason,
        reason_code: plan.reason_code,
        planned_seconds: plan.planned_seconds,
        session_capped: plan.session_capped,
        reason: plan.reason,
        forecast_credit_mm: null,
        forecast_credit_source: null,
        allowance_mm: null,
        ...decision.figures.get(plan.zone),
      },
    ];
  });
}

/** The replay's config: the file's site, one dry-run controller for every zone, no sources. */
export function seasonConfig(
  options: Pick<SeasonOptions, 'config' | 'lat' | 'lon' | 'elevation_m' | 'demoYard'>,
): RaincheckConfig {
  const base = options.config;
  const zones = Object.fromEntries(
    Object.entries(base.zones).map(([slug, z], i) => [
      slug,
      { ...z, controller_id: CONTROLLER_ID, controller_station: String(i + 1) },
    ]),
  );
  return {
    ...base,
    deployment: {
      ...base.deployment,
      location: { lat: options.lat, lon: options.lon, elevation_m: options.elevation_m },
      timezone: base.deployment.timezone ?? timezoneAt(options.lat, options.lon),
    },
    features: { ...base.features, demo_mode: options.demoYard === true },
    sources: [],
    controllers: [
      {
        id: CONTROLLER_ID,
        default: true,
        enabled: true,
        kind: 'dry_run',
        config: { concurrent_zones: false },
      },
    ] as RaincheckConfig['controllers'],
    zones,
  };
}

/** The controllers as the dispatcher sees them, with dry-run routes reported as real: their runs are water. */
function delivered(controllers: ValveDriver): ValveDriver {
  return {
    route: (zone) => {
      const r = controllers.route(zone);
      return r.ok ? { ok: true, route: { ...r.route, simulated: false } } : r;
    },
    run: (route, seconds) => controllers.run(route, seconds),
    stopZone: (route) => controllers.stopZone(route),
    stopAll: () => controllers.stopAll(),
    zoneStates: () => controllers.zoneStates(),
    readZone: (route) => controllers.readZone(route),
    confirmWithinS: () => controllers.confirmWithinS(),
  };
}

function nextDate(date: string, zone: ReturnType<typeof zoneFor>): string {
  return DateTime.fromISO(date, { zone }).plus({ days: 1 }).toISODate() ?? '';
}
