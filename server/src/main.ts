import type { Server } from 'node:http';
import { join } from 'node:path';
import { registerBuiltinKinds } from './config/builtin-kinds';
import { ConfigService } from './config/config-service';
import { EnvError, parseEnv, type RuntimeEnv } from './config/env';
import type { RaincheckConfig } from './config/schema';
import { configSchemaModule } from './config/schema-module';
import { EventBus } from './core/bus';
import { systemClock, type Clock } from './core/clock';
import { once } from './core/zod-lazy';
import { HealthRegistry } from './core/health';
import { loadInstallId } from './core/install-id';
import { MdnsAdvertiser } from './lan/mdns-advertiser';
import { supervisorDiscoveryFrom } from './ha/supervisor-discovery';
import { humanDestination, readyLine } from './core/human-log';
import { createRootLogger, type Logger } from './core/logger';
import { enableOptimizerWhenBusy } from './core/optimizer-when-busy';
import { collectWhileIdle } from './core/idle-collector';
import { Metrics } from './core/metrics';
import { lazyHttpFetch as httpFetch } from './core/lazy-http-fetch';
import { timedFetch } from './core/timed-fetch';
import { MetricsFeed } from './ops/metrics-feed';
import {
  applyStagedRestore,
  pendingRestore,
  removeLeftovers,
  RESTORE_RESTART_REASON,
} from './ops/restore/staged';
import { backupRoutes } from './http/routes/backup';
import { systemRoutes } from './http/routes/system';
import { adoptDatabaseSnapshot } from './ops/ha-backup/database-snapshot';
import { diagnosticsRoutes } from './http/routes/diagnostics';
import type { Diagnostics } from './ops/diagnostics/diagnostics';
import { LogRing } from './core/log-ring';
import { Restarter, supervisorFrom } from './ops/restart';
import type { IrrigationSnapshot } from './irrigation/snapshot-schema';
import { createApp } from './http/app';
import { removeStaleTempFilesIn } from './core/atomic-write';
import { PHOTO_DIR } from './photos/store';
import { defaultHttpLimits, type HttpLimits } from './http/limits';
import { inList } from './auth/network';
import type { HttpDeps } from './http/deps';
import { configRoutes } from './http/routes/config';
import { healthRoutes } from './http/routes/health';
import { infoRoutes } from './http/routes/info';
import { locationRoutes } from './http/routes/location';
import { metricsRoutes } from './http/routes/metrics';
import { updatesRoutes } from './http/routes/updates';
import { SseHub } from './http/sse';
import { requirePrivileged } from './auth/privileged';
import { AuthService } from './auth/auth-service';
import { buildPolicy, RequestAuthenticator, type AuthPolicy } from './auth/request-auth';
import { ownHostNames } from './auth/request-origin';
import { authRoutes } from './http/routes/auth';
import { webAppRoutes } from './http/routes/web-app';
import { ElevationClient } from './location/elevation';
import { tryOpenStore, type Store } from './store/store';
import { builtinSourceKinds, MODELLED_KINDS, registerWithConfigValidator } from './weather/sources/index';
import type { SourceKindDefinition } from './weather/source';
import { WeatherService } from './weather/weather-service';
import { snapshotRoutes } from './http/routes/snapshot';
import { streamRoutes } from './http/routes/stream';
import { weatherRoutes } from './http/routes/weather';
import { devicesRoutes } from './http/routes/devices';
import { configSourceRoutes } from './http/routes/config-sources';
import { ingestRoutes } from './http/routes/ingest';
import { wizardRoutes } from './http/routes/wizard';
import { DISCOVERY_LISTEN_MS, TEMPEST_PORT } from './weather/discovery';
import { haLinkOptionsFromEnv } from './ha/ha-env';
import type { HaLink } from './ha/ha-link';
import { HaSupport } from './ha/ha-support';
import { sensorsRoutes } from './http/routes/sensors';
import { haClaimRoutes } from './http/routes/ha-claim';
import { IntegrationClaim, settingsUnderClaim } from './ha/integration-claim';
import { soilProbes } from './irrigation/soil/soil-probes';
import { soilProbeRoutes } from './http/routes/soil-probes';
import { createHaPassthroughKind } from './weather/sources/ha/passthrough';
import { ForecastService } from './forecast/forecast-service';
import { createForecastFactory } from './forecast/plan';
import { forecastRoutes } from './http/routes/forecast';
import { radarRoutes } from './http/routes/radar';
import type { RadarService } from './radar/radar-service';
import { computeIrrigation } from './irrigation/engine/engine';
import { IrrigationService } from './irrigation/irrigation-service';
import { SoilLedgerService } from './irrigation/soil/soil-ledger-service';
import { WeatherRecordService } from './weather-record/weather-record-service';
import { irrigationRoutes } from './http/routes/irrigation';
import { irrigationHistoryRoutes } from './http/routes/irrigation-history';
import { irrigationTuningRoutes } from './http/routes/irrigation-tuning';
import { lazyTuningService } from './irrigation/tuning/lazy-tuning';
import { TuningDigest } from './irrigation/tuning/tuning-digest';
import { AnomalyService } from './irrigation/anomalies/anomaly-service';
import type { Advisor } from './advisor/advisor';
import { collectSecretValues } from './config/secrets';
import { deploymentTimezone } from './irrigation/history/deployment-zone';
import { restrictionGateOf } from './irrigation/dispatch/restriction-source';
import { scheduleSwitchOf } from './irrigation/schedule/schedule-switch';
import { effectiveRainThresholdIn } from './irrigation/history/rain-threshold';
import { API_PREFIX, API_VERSION, REPOSITORY, SERVICE_VERSION } from './core/version';
import { ControllerManager } from './controllers/controller-manager';
import { builtinControllerKinds } from './controllers/index';
import { registerWithConfigValidator as registerControllerKinds } from './controllers/kinds';
import { Dispatcher } from './irrigation/dispatch/dispatcher';
import { RunLedger } from './irrigation/dispatch/run-ledger';
import { RunObserver } from './irrigation/dispatch/observer';
import { RunLogReconciler } from './irrigation/dispatch/run-log-reconcile';
import {
  DEFAULT_RELEASES_URL,
  UpdateChecker,
  type UpdateCheckerDeps,
  type UpdateSettings,
} from './ops/updates/update-checker';
import { reconcileOpenRuns } from './irrigation/dispatch/reconcile';
import { Scheduler } from './irrigation/dispatch/scheduler';
import { FlowMonitor } from './irrigation/flow/flow-monitor';
import { FlowMeterHub } from './controllers/flow-meters/meter-hub';
import { lazyActionExecutor } from './irrigation/lazy-action-executor';
import { catalogView } from './ha/entities/view';
import { mqttSettingsFrom } from './ha/mqtt/settings';
import type { MqttPublisher } from './ha/mqtt/publisher';
import { NotifyService, type NotifyServiceDeps } from './notify/notify-service';
import { pushRoutes } from './http/routes/push';
import { notificationsRoutes } from './http/routes/notifications';

/**
 * The composition root: the only place that builds modules and wires them
 * together. Everything else receives its dependencies.
 */

export const DATABASE_FILE = 'raincheck.db';
/** The weather record's first-start backfill waits this long after listen: the first requests come first. */
const BACKFILL_AFTER_LISTEN_MS = 250;
export const FORECAST_CACHE_FILE = 'forecast-cache.json';
/** How long a graceful stop waits for requests in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 3000;

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  elevation?: ElevationClient;
  /** Injected into every HTTP client of the sources (tests point them at loopback peers). */
  fetch?: typeof fetch;
  /** Extra source kinds (tests register probes). */
  sourceKinds?: readonly SourceKindDefinition[];
  /** LAN discovery: listen time, Tempest port, and the wizard's mDNS socket (tests inject these). */
  discovery?: { listenMs: number; port: number; mdns?: import('./wizard/controller-sweep').MdnsFactory };
  /** The wait before an MQTT discovery republish (tests shorten the 0.5-3 s default). */
  mqttRepublishDelayMs?: () => number;
  /** Keys the validated-config cache (ConfigServiceDeps.buildId); tests running from sources inject one. */
  buildId?: string | null;
  /** Notification delivery knobs tests shorten or point at their peers (back-off, SMTP TLS trust). */
  notify?: Pick<NotifyServiceDeps, 'retryDelaysMs' | 'smtpTls'>;
  /** POST /backup/restore size limits (tests shrink them). */
  restoreLimits?: HttpDeps['restoreLimits'];
  /** Where the last warnings and errors are kept for /diagnostics (tests pass the ring their logger writes to). */
  logRing?: LogRing;
  /** POST /system/restart in exit mode: graceful stop and exit 0 (run() wires its shutdown; default SIGTERM to self). */
  exit?: () => void;
  /** HTTP timeouts and caps over the defaults (tests shorten and shrink them). */
  httpLimits?: Partial<HttpLimits>;
}

export interface Service {
  readonly env: RuntimeEnv;
  readonly server: Server;
  readonly config: ConfigService;
  readonly store: Store | null;
  readonly bus: EventBus;
  readonly weather: WeatherService;
  readonly notify: NotifyService;
  /** Listens on env.host:env.port; resolves with the bound port. */
  listen(): Promise<number>;
  /** Graceful stop: refuse new connections, end SSE streams, finish writes, close the database. */
  stop(): Promise<void>;
}

export async function createService(env: RuntimeEnv, options: ServiceOptions = {}): Promise<Service> {
  const boot = wireBoot(env, options);
  const observability = await wireObservability(boot.clock);
  const core: Core = { env, options, ...boot, bus: observability.bus, health: observability.health };
  const store = wireStore(core);
  // Built with the controllers below; the config validator asks them what only the hardware knows (master stations).
  const liveHardware: LiveHardware = { controllers: null };
  const config = await wireConfig(core, liveHardware);
  await startHaLink(core);
  // Notifications listen from here on: every announcement after boot can reach the owner.
  const notify = await wireNotify(core, config, store);
  const ha = await wireHaSupport(core, config, store);
  const siteTimezone = () => deploymentTimezone(config.current, ha.http.facts());
  const weather = await wireWeather(core, { ha, store, timed: observability.timed });
  const forecast = await wireForecast(core, { ha, store, timed: observability.timed });
  const soil = await wireWeatherRecordAndSoil(core, { ha, store, forecast });
  const hardware = await wireControllersAndDispatch(core, {
    config,
    store,
    weather,
    siteTimezone,
    liveHardware,
  });
  const watering = await wireIrrigation(core, { config, ha, store, weather, forecast, soil, hardware });
  const restarter = wireRestarter(core, watering.irrigation, hardware.dispatcher);
  const learning = await wireLearning(core, {
    config,
    ha,
    store,
    weather,
    forecast,
    hardware,
    watering,
    siteTimezone,
  });
  const entities = await wireHaEntities(core, { config, weather, watering });
  core.health.provide('engine', () => watering.irrigation.engineHealth());
  const streams = wireStreams(core, { weather, forecast, irrigation: watering.irrigation });
  const access = wireAuth(core, { store, config, sse: streams.sse });
  const updates = wireUpdates(core, config, store);
  const app = await wireHttp(core, {
    observability,
    store,
    config,
    notify,
    ha,
    weather,
    forecast,
    soil,
    hardware,
    watering,
    restarter,
    learning,
    entities,
    streams,
    access,
    updates,
  });
  const lan = wireLan(core, entities.installId);
  return serviceOf(core, {
    app,
    config,
    store,
    observability,
    notify,
    ha,
    weather,
    forecast,
    soil,
    hardware,
    watering,
    learning,
    entities,
    streams,
    updates,
    lan,
  });
}

/** What every domain's wiring receives: the runtime, the options, and the shared clock, log, bus and health. */
interface Core extends WiredBoot {
  readonly env: RuntimeEnv;
  readonly options: ServiceOptions;
  readonly bus: EventBus;
  readonly health: HealthRegistry;
}

type WiredBoot = ReturnType<typeof wireBoot>;
type WiredObservability = Awaited<ReturnType<typeof wireObservability>>;
type WiredSoil = Awaited<ReturnType<typeof wireWeatherRecordAndSoil>>;
type WiredHardware = Awaited<ReturnType<typeof wireControllersAndDispatch>>;
type WiredIrrigation = Awaited<ReturnType<typeof wireIrrigation>>;
type WiredLearning = Awaited<ReturnType<typeof wireLearning>>;
type WiredHaEntities = Awaited<ReturnType<typeof wireHaEntities>>;
type WiredStreams = ReturnType<typeof wireStreams>;
type WiredAuth = ReturnType<typeof wireAuth>;
type WiredLan = ReturnType<typeof wireLan>;
/** A source's or model's fetch with its timings fed to the metrics. */
type TimedFetch = (use: 'weather' | 'forecast') => (kind: string, inner: typeof fetch) => typeof fetch;
/** The controllers once built (null before): the config validator reads them late. */
interface LiveHardware {
  controllers: ControllerManager | null;
}

/** Clock, log, the Home Assistant link and the registered source and controller kinds. */
function wireBoot(env: RuntimeEnv, options: ServiceOptions) {
  const clock = options.clock ?? systemClock;
  const logRing = options.logRing ?? new LogRing();
  const logger = options.logger ?? createRootLogger(env.logLevel, { ring: logRing });
  const startedAtMs = clock.nowMs();
  registerBuiltinKinds();
  const haOptions = haLinkOptionsFromEnv(env.vars);
  // The websocket client loads only when Home Assistant is configured.
  const haLink = haOptions ? new (loadHaLink())({ ...haOptions, logger, clock }) : null;
  const sourceKinds = builtinSourceKinds([
    createHaPassthroughKind(() => haLink),
    ...(options.sourceKinds ?? []),
  ]);
  registerWithConfigValidator(sourceKinds);
  const controllerKinds = builtinControllerKinds();
  registerControllerKinds(controllerKinds.values());
  return { clock, logRing, logger, startedAtMs, haLink, sourceKinds, controllerKinds };
}

/** The event bus, health registry and metrics (with the timed fetch every source and model uses). */
async function wireObservability(clock: Clock) {
  const bus = new EventBus();
  const health = new HealthRegistry();
  const metrics = new Metrics();
  const metricsFeed = new MetricsFeed({ bus, metrics, health });
  await metricsFeed.start();
  const timed: TimedFetch = (use) => (kind, inner) =>
    timedFetch(inner, kind, use, metricsFeed.observeFetch, () => clock.nowMs());
  return { bus, health, metrics, metricsFeed, timed };
}

/** The database, after a crash's leftovers are swept and a staged restore is swapped in. */
function wireStore({ env, logger, health }: Core): Store | null {
  // Temp files and a restore's work dir a crash left; then a database a restore staged
  // swaps in before the store opens it (ops/restore/staged.ts).
  removeLeftovers(env.dataDir);
  sweepInterruptedWrites(env.dataDir, logger);
  applyStagedRestore(env.dataDir, DATABASE_FILE, logger);
  if (adoptDatabaseSnapshot(env.dataDir, DATABASE_FILE)) {
    logger.child({ module: 'restore' }).warn('restored the database from a Home Assistant backup');
  }
  const { store, error: storeError } = tryOpenStore(join(env.dataDir, DATABASE_FILE), logger);
  health.set('database', store ? 'ok' : 'unavailable', storeError);
  return store;
}

async function wireConfig(core: Core, liveHardware: LiveHardware): Promise<ConfigService> {
  const { env, bus, clock, logger, health, options } = core;
  const config = new ConfigService({
    env,
    bus,
    clock,
    logger,
    liveWarnings: (candidate) => liveHardware.controllers?.stationWarnings(candidate) ?? [],
    ...(options.buildId === undefined ? {} : { buildId: options.buildId }),
  });
  const reportConfigHealth = (): void => {
    const { status, report } = config.health;
    health.set('config', status, report.errors[0]?.message ?? report.note ?? null);
  };
  bus.on('config.changed', reportConfigHealth);
  await config.load();
  reportConfigHealth();
  return config;
}

async function startHaLink({ haLink, health }: Core): Promise<void> {
  if (!haLink) return;
  const reportHa = () => {
    const { status, note } = haLink.subsystemStatus();
    health.set('ha', status, note);
  };
  haLink.onConnectionChange(reportHa);
  await haLink.start();
  reportHa();
  health.provideHa(() => haLink.health());
}

async function wireNotify(core: Core, config: ConfigService, store: Store | null): Promise<NotifyService> {
  const { env, bus, clock, logger, options } = core;
  const notify = new NotifyService({
    bus,
    clock,
    logger,
    config: () => config.current,
    store,
    dataDir: env.dataDir,
    fetch: options.fetch ?? fetch,
    publicUrl: env.publicUrl,
    ...options.notify,
  });
  await notify.start();
  return notify;
}

/** HA location facts (site fallbacks) and retired-helper adoption: ha/ha-support.ts. */
async function wireHaSupport(core: Core, config: ConfigService, store: Store | null): Promise<HaSupport> {
  const { haLink, bus, clock, logger } = core;
  const ha = new HaSupport({ link: haLink, bus, clock, logger, config: () => config.current, store });
  await ha.start();
  return ha;
}

async function wireWeather(
  core: Core,
  { ha, store, timed }: { ha: HaSupport; store: Store | null; timed: TimedFetch },
): Promise<WeatherService> {
  const { env, bus, clock, logger, health, options } = core;
  const weather = new WeatherService({
    bus,
    clock,
    logger,
    config: ha.siteConfig,
    store,
    kinds: core.sourceKinds,
    modelledKinds: MODELLED_KINDS,
    demo: env.demo,
    fetch: options.fetch ?? httpFetch,
    fetchFor: timed('weather'),
  });
  await weather.start();
  health.provideSources(() => weather.sourceHealth());
  const reportWeatherHealth = () =>
    health.set('weather', weather.sourceHealth().length > 0 ? 'ok' : 'disabled', null);
  reportWeatherHealth();
  bus.on('config.changed', reportWeatherHealth);
  return weather;
}

async function wireForecast(
  core: Core,
  { ha, store, timed }: { ha: HaSupport; store: Store | null; timed: TimedFetch },
): Promise<ForecastService> {
  const { env, bus, clock, logger, health, options } = core;
  const forecast = new ForecastService({
    bus,
    clock,
    logger,
    config: ha.siteConfig,
    store,
    cachePath: join(env.dataDir, FORECAST_CACHE_FILE),
    demo: env.demo,
    factory: createForecastFactory({
      fetch: options.fetch ?? httpFetch,
      clock,
      userAgent: `raincheck/${SERVICE_VERSION} (${REPOSITORY})`,
      fetchFor: timed('forecast'),
    }),
  });
  await forecast.start();
  health.provide('forecast', () => forecast.health());
  return forecast;
}

/** The daily weather record and the soil water ledger it feeds (both need the database). */
async function wireWeatherRecordAndSoil(
  { bus, clock, logger }: Core,
  { ha, store, forecast }: { ha: HaSupport; store: Store | null; forecast: ForecastService },
) {
  const weatherRecord = store
    ? new WeatherRecordService({
        bus,
        clock,
        logger,
        config: ha.siteConfig,
        store,
        forecast,
        modelledKinds: MODELLED_KINDS,
      })
    : null;
  await weatherRecord?.start();
  const probes = store ? soilProbes(store) : null;
  const soilLedger =
    store && weatherRecord
      ? new SoilLedgerService({
          bus,
          logger,
          config: ha.siteConfig,
          store,
          record: weatherRecord,
          probeCalibration: (sensorId) => probes?.calibrations.get(sensorId) ?? null,
          learnWetPoint: (sensorId, raw, epoch) =>
            probes?.calibrations.setPoint(sensorId, 'wet', raw, 'ledger_refill', epoch),
        })
      : null;
  await soilLedger?.start();
  return { weatherRecord, probes, soilLedger };
}

/** Controllers, flow meters and monitor, the dispatcher and what observes its runs, then open runs reconciled. */
async function wireControllersAndDispatch(
  core: Core,
  deps: {
    config: ConfigService;
    store: Store | null;
    weather: WeatherService;
    siteTimezone: () => string;
    liveHardware: LiveHardware;
  },
) {
  const { env, bus, clock, logger, health, options, haLink } = core;
  const { config, store, weather, siteTimezone } = deps;
  const zoneConfig = (zone: string) => config.current?.config.zones[zone];
  const ledger = new RunLedger(store?.runs ?? null);
  const state = store?.controls ?? null;
  let dispatcher: Dispatcher | null = null;
  const controllers = new ControllerManager({
    bus,
    clock,
    logger,
    config: () => config.current,
    kinds: core.controllerKinds,
    fetch: options.fetch ?? httpFetch,
    ha: () => haLink,
    forceDryRun: env.demo || env.dryRun,
    busyControllers: () => dispatcher?.busyControllers() ?? new Set(),
  });
  deps.liveHardware.controllers = controllers;
  // Flow meters in, metered water and flow alarms out (the dispatcher measures its runs through it).
  const flowMeters = new FlowMeterHub({
    bus,
    clock,
    logger,
    config: () => config.current,
    ha: () => haLink,
    mqttBroker: () => mqttSettingsFrom(config.current?.config ?? null, env.vars),
    sourceChannel: (sourceId, key) =>
      weather.extras().find((x) => x.key === `source:${sourceId}:${key}`) ?? null,
  });
  const flow = new FlowMonitor({
    bus,
    clock,
    logger,
    config: () => config.current,
    runs: store?.runs ?? null,
    alarms: store?.flowAlarms ?? null,
    activeRuns: () => dispatcher?.activeRuns() ?? new Map(),
    stopZone: (zone, reason) => (dispatcher ? dispatcher.stop(zone, reason) : Promise.resolve()),
  });
  const built = new Dispatcher({
    clock,
    logger,
    bus,
    driver: controllers,
    ledger,
    zoneConfig,
    state,
    meter: flow,
    restrictions: restrictionGateOf({
      config: () => config.current?.config,
      runs: store?.runs ?? null,
      timezone: () => siteTimezone(),
    }),
    masterConfig: () => config.current?.config,
  });
  dispatcher = built;
  const observer = new RunObserver({
    bus,
    logger,
    ledger,
    zoneConfig,
    clock,
    meter: flow,
    activeRun: (zone) => built.activeRuns().get(zone),
  });
  // Finished rows are cut to what a controller's own run log holds (OpenSprinkler /jl).
  new RunLogReconciler({ driver: controllers, ledger, zoneConfig, logger, bus }).start();
  await flow.start();
  await flowMeters.start();
  await controllers.start();
  health.provideControllers(() => {
    const live = new Map(controllers.health().map((h) => [h.id, h]));
    return (config.current?.config.controllers ?? []).map((c) => ({
      id: c.id,
      kind: c.kind,
      default: c.default,
      enabled: c.enabled,
      reachable: live.get(c.id)?.reachable ?? null,
      note: live.get(c.id)?.last_error ?? null,
      failsafe: live.get(c.id)?.failsafe ?? null,
    }));
  });
  observer.start();
  built.start();
  await reconcileOpenRuns({
    clock,
    logger,
    bus,
    ledger,
    driver: controllers,
    dispatcher: built,
    observer,
    state,
    zoneConfig,
  });
  return { ledger, state, controllers, flowMeters, flow, dispatcher: built, observer };
}

/** The irrigation decisions, the adoption of retired HA helpers, the scheduler and the actions users take. */
async function wireIrrigation(
  core: Core,
  deps: {
    config: ConfigService;
    ha: HaSupport;
    store: Store | null;
    weather: WeatherService;
    forecast: ForecastService;
    soil: WiredSoil;
    hardware: WiredHardware;
  },
) {
  const { env, bus, clock, logger } = core;
  const { config, ha, store, weather, forecast, soil, hardware } = deps;
  const { controllers, dispatcher } = hardware;
  const irrigation = new IrrigationService({
    bus,
    clock,
    logger,
    config: ha.siteConfig,
    store,
    weather,
    forecast,
    compute: computeIrrigation,
    hardware: {
      zoneStates: () => controllers.zoneStates(),
      hardwareFacts: () => controllers.hardwareFacts(),
      softwareFailsafeControllers: () => controllers.softwareFailsafeControllers(),
      // A restore's staged database is one more reason to restart (spec 2.5 restart_required).
      restartReasons: () =>
        pendingRestore(env.dataDir)
          ? [...controllers.restartReasons(), RESTORE_RESTART_REASON]
          : controllers.restartReasons(),
    },
    ha: ha.irrigationView,
    flow: hardware.flow,
    soil: soil.soilLedger,
    probes: soil.probes?.reader ?? null,
  });
  await irrigation.start();
  await ha.startAdoption(irrigation);
  const scheduler = new Scheduler({
    bus,
    clock,
    logger,
    dispatcher,
    driver: controllers,
    ledger: hardware.ledger,
    snapshot: () => irrigation.snapshot(),
    state: hardware.state,
    sessionPlans: store?.sessionPlans ?? null,
  });
  await scheduler.start();
  const actions = lazyActionExecutor({
    irrigation,
    dispatcher,
    clock,
    soil: soil.soilLedger,
    schedules: scheduleSwitchOf({
      config: () => config.current?.config,
      update: (build, options) => config.update(build, options),
    }),
  });
  return { irrigation, scheduler, actions };
}

/** POST /system/restart: it waits for no zone to run. */
function wireRestarter(
  { env, logger, options }: Core,
  irrigation: IrrigationService,
  dispatcher: Dispatcher,
) {
  return new Restarter({
    logger,
    runningZones: () => runningZones(irrigation.snapshot(), dispatcher.activeRuns().keys()),
    supervisor: supervisorFrom(env.vars),
    exit: options.exit ?? (() => process.kill(process.pid, 'SIGTERM')),
    fetch: options.fetch ?? fetch,
  });
}

/** Tuning (learned from the stored record), its digest, anomalies and the advisor (both load lazily). */
async function wireLearning(
  core: Core,
  deps: {
    config: ConfigService;
    ha: HaSupport;
    store: Store | null;
    weather: WeatherService;
    forecast: ForecastService;
    hardware: WiredHardware;
    watering: WiredIrrigation;
    siteTimezone: () => string;
  },
) {
  const { bus, clock, logger, options } = core;
  const { config, ha, store, weather, forecast, siteTimezone } = deps;
  const { controllers } = deps.hardware;
  const { irrigation } = deps.watering;
  const tuning = store
    ? lazyTuningService({
        store,
        clock,
        config,
        timezone: siteTimezone,
        rainThresholdIn: () => effectiveRainThresholdIn(store, config.current, siteTimezone()),
        restartReasons: () => controllers.restartReasons(),
        // The stored soil ledger and daily weather record (issue 15): the derivers' evidence.
        providers: {
          soilLedger: (zone, from, to) => store.soilLedger.range(zone, from, to),
          weatherRecord: (from, to) => store.weatherDays.range(from, to),
        },
      })
    : null;
  const digest =
    store && tuning
      ? new TuningDigest({ bus, clock, logger, tuning, announcements: store.announcements })
      : null;
  await digest?.start();
  const anomalies = new AnomalyService({
    bus,
    clock,
    logger,
    gather: (now, heard) => {
      const applied = ha.siteConfig();
      if (!applied) return null;
      const live = {
        store,
        config: applied.config,
        timezone: siteTimezone(),
        sources: weather.sourceHealth(),
        forecast: forecast.snapshot(),
        irrigation: irrigation.snapshot(),
        modelledKinds: MODELLED_KINDS,
      };
      return loadAnomalyEvidence().gatherAnomalyEvidence(live, now, heard);
    },
    ttlS: () => config.current?.config.llm?.anomaly_ttl_s ?? null,
    announced: store?.announcements ?? null,
    // Flow alarms as the flow monitor stored them (issue 17), not only those heard since start.
    flowAlarms: store ? (now) => loadAnomalyEvidence().storedFlowAlarms(store, now) : undefined,
  });
  await anomalies.start();
  const advisor = lazyAdvisor({
    clock,
    logger,
    fetch: options.fetch ?? fetch,
    settings: () => {
      const current = config.current?.config;
      return current?.llm && current.features.enable_advisor ? current.llm : null;
    },
    secrets: () => {
      const applied = config.current;
      return applied
        ? [...collectSecretValues(applied.document), ...collectSecretValues(applied.config as never)]
        : [];
    },
    engine: () => irrigation.latestOutput(),
    anomalies: () => anomalies.list().anomalies,
  });
  return { tuning, digest, anomalies, advisor };
}

/** The entity catalogue, the install id, the integration claim and the MQTT publisher (loaded only when set up). */
async function wireHaEntities(
  core: Core,
  deps: { config: ConfigService; weather: WeatherService; watering: WiredIrrigation },
) {
  const { env, bus, clock, logger, health, options } = core;
  const { config, weather } = deps;
  const { irrigation, actions } = deps.watering;
  const entityView = () => catalogView({ config: () => config.current, irrigation, weather });
  const installId = loadInstallId(env.dataDir);
  const haClaim = IntegrationClaim.inDataDir(env.dataDir);
  const mqttSettings = () =>
    settingsUnderClaim(mqttSettingsFrom(config.current?.config ?? null, env.vars), haClaim);
  const mqtt = mqttSettings()
    ? new (loadMqttPublisher())({
        bus,
        clock,
        logger,
        settings: mqttSettings,
        installId,
        version: SERVICE_VERSION,
        executor: actions,
        view: entityView,
        republishDelayMs: options.mqttRepublishDelayMs,
      })
    : null;
  await mqtt?.start();
  haClaim.onChange(() => mqtt?.settingsChanged());
  if (mqtt) health.provide('mqtt', () => mqtt.health());
  return { entityView, installId, haClaim, mqtt };
}

/** The live feeds (SSE) of the weather, forecast and irrigation snapshots, within the HTTP limits. */
function wireStreams(
  { bus, logger, options }: Core,
  deps: { weather: WeatherService; forecast: ForecastService; irrigation: IrrigationService },
) {
  const { weather, forecast, irrigation } = deps;
  const limits: HttpLimits = { ...defaultHttpLimits(), ...options.httpLimits };
  const sse = new SseHub(logger, undefined, limits.maxStreams);
  sse.defineFeed('weather', { keepAliveMs: 15_000, current: () => weather.snapshot() });
  bus.on('weather.snapshot', (snapshot) => sse.publish('weather', snapshot));
  sse.defineFeed('forecast', { keepAliveMs: 30_000, current: () => forecast.snapshot() });
  bus.on('forecast.snapshot', (snapshot) => sse.publish('forecast', snapshot));
  sse.defineFeed('irrigation', { keepAliveMs: 15_000, current: () => irrigation.snapshot() });
  bus.on('irrigation.snapshot', (snapshot) => sse.publish('irrigation', snapshot));
  return { limits, sse };
}

/** Accounts and sessions, the enforced policy and the per-request authenticator; a revocation recheck streams. */
function wireAuth(
  { env, bus, clock, logger }: Core,
  deps: { store: Store | null; config: ConfigService; sse: SseHub },
) {
  const auth = new AuthService({
    store: deps.store,
    clock,
    logger,
    bus,
    sessionTtlDays: () => policy().session_ttl_days,
  });
  bus.on('auth.revoked', () => deps.sse.revalidate());
  const policy = authPolicy(deps.config, auth, env);
  const authenticator = new RequestAuthenticator(auth, policy);
  return { auth, policy, authenticator };
}

/** The opt-in release check (GET /updates). */
function wireUpdates({ bus, clock, logger, options }: Core, config: ConfigService, store: Store | null) {
  return startUpdateCheck({
    clock,
    logger,
    bus,
    fetch: options.fetch ?? fetch,
    settings: () => updateSettings(config.current?.config.updates),
    state: store?.controls ?? null,
  });
}

/** The HTTP app: every route with its dependencies, behind the auth gate and the limits. */
async function wireHttp(
  core: Core,
  wired: {
    observability: WiredObservability;
    store: Store | null;
    config: ConfigService;
    notify: NotifyService;
    ha: HaSupport;
    weather: WeatherService;
    forecast: ForecastService;
    soil: WiredSoil;
    hardware: WiredHardware;
    watering: WiredIrrigation;
    restarter: Restarter;
    learning: WiredLearning;
    entities: WiredHaEntities;
    streams: WiredStreams;
    access: WiredAuth;
    updates: UpdateChecker;
  },
) {
  const { env, clock, logger, health, options, startedAtMs, logRing } = core;
  const { store, config, notify, ha, weather, forecast, soil, hardware, watering, learning } = wired;
  const { metrics, metricsFeed } = wired.observability;
  const { entityView, installId, haClaim, mqtt } = wired.entities;
  const { limits, sse } = wired.streams;
  const { auth, policy, authenticator } = wired.access;
  // Built on the first radar request: most instances never draw a map layer.
  let radar: RadarService | null = null;
  const radarService = (): RadarService =>
    (radar ??= loadRadar({ clock, logger, fetch: options.fetch ?? fetch }));
  const deps: HttpDeps = {
    env,
    clock,
    logger,
    config,
    store,
    health,
    metrics,
    sse,
    elevation: options.elevation ?? new ElevationClient(),
    weather,
    forecast,
    irrigation: watering.irrigation,
    actions: watering.actions,
    tuning: learning.tuning,
    anomalies: learning.anomalies,
    advisor: learning.advisor,
    soil: soil.soilLedger,
    catalogView: entityView,
    sourceKinds: core.sourceKinds,
    controllerKinds: core.controllerKinds,
    fetch: options.fetch ?? fetch,
    discoveryListenMs: options.discovery?.listenMs ?? DISCOVERY_LISTEN_MS,
    discoveryPort: options.discovery?.port ?? TEMPEST_PORT,
    discoveryMdns: options.discovery?.mdns,
    installId,
    startedAtMs,
    privileged: requirePrivileged({
      authConfig: policy,
      hasCredential: (request) => authenticator.hasCredential(request),
    }),
    isAuthenticated: (request) => authenticator.isAuthenticated(request),
    streamGuard: (request) => authenticator.streamGuard(request),
    authRequired: () => policy().mode === 'required',
    ha: ha.http,
    notify,
    ...(options.restoreLimits ? { restoreLimits: options.restoreLimits } : {}),
    updates: wired.updates,
  };
  const app = createApp(
    logger,
    metrics,
    [
      infoRoutes(deps),
      healthRoutes(deps),
      metricsRoutes(deps),
      updatesRoutes(deps),
      locationRoutes(deps),
      configRoutes(deps),
      configSourceRoutes(deps),
      snapshotRoutes(deps),
      streamRoutes(deps),
      weatherRoutes(deps),
      devicesRoutes(deps),
      sensorsRoutes(deps),
      haClaimRoutes(deps, haClaim, () => mqtt !== null),
      soilProbeRoutes(deps, soil.probes),
      ingestRoutes(deps),
      forecastRoutes(deps),
      radarRoutes(radarService),
      irrigationRoutes(deps),
      authRoutes({ auth, authenticator, policy, config, logger }),
      irrigationHistoryRoutes(deps),
      irrigationTuningRoutes(deps),
      ...webAppRoutes(deps),
      wizardRoutes(deps),
      pushRoutes(deps),
      notificationsRoutes(deps),
      backupRoutes(deps),
      systemRoutes(deps, wired.restarter),
      diagnosticsRoutes(
        () =>
          new (loadDiagnostics())({
            clock,
            startedAtMs,
            env,
            databaseFile: join(env.dataDir, DATABASE_FILE),
            config,
            health,
            store,
            controllers: () => hardware.controllers.health(),
            fetches: () => metricsFeed.fetches(),
            logRing,
            notifications: notify,
          }),
      ),
    ],
    {
      gate: authenticator.gate,
      limits,
      clientOf: (request) => authenticator.of(request).client,
      isTrustedProxy: (peer) => inList(policy().proxies, peer),
    },
  );
  await app.ready();
  return app;
}

/** The LAN announcements: mDNS and, in the add-on, the Supervisor's discovery of the integration. */
function wireLan({ env, logger, options }: Core, installId: string | null) {
  const log = logger.child({ module: 'main' });
  // The port listen() bound (env.port until then): the advertisement carries it.
  const bound = { port: env.port };
  const mdns = new MdnsAdvertiser({
    logger,
    settings: env.mdns,
    facts: () =>
      installId
        ? {
            uuid: installId,
            port: bound.port,
            apiVersion: API_VERSION,
            basePath: API_PREFIX,
            serviceVersion: SERVICE_VERSION,
          }
        : null,
  });
  const supervisorDiscovery = supervisorDiscoveryFrom(env.vars, {
    logger,
    fetch: options.fetch ?? fetch,
    installId,
  });
  return { log, bound, mdns, supervisorDiscovery };
}

/** listen() and the graceful stop: streams and connections first, then every module, the store last. */
function serviceOf(
  { env, bus, haLink }: Core,
  wired: {
    app: Awaited<ReturnType<typeof wireHttp>>;
    config: ConfigService;
    store: Store | null;
    observability: WiredObservability;
    notify: NotifyService;
    ha: HaSupport;
    weather: WeatherService;
    forecast: ForecastService;
    soil: WiredSoil;
    hardware: WiredHardware;
    watering: WiredIrrigation;
    learning: WiredLearning;
    entities: WiredHaEntities;
    streams: WiredStreams;
    updates: UpdateChecker;
    lan: WiredLan;
  },
): Service {
  const { app, config, store, notify, weather, lan } = wired;
  const { weatherRecord, soilLedger } = wired.soil;
  const { controllers, flowMeters, flow, dispatcher, observer } = wired.hardware;
  const { irrigation, scheduler } = wired.watering;
  const { digest, anomalies } = wired.learning;
  const { mqtt } = wired.entities;
  return {
    env,
    server: app.server,
    config,
    store,
    bus,
    weather,
    notify,
    listen: async () => {
      await app.listen({ port: env.port, host: env.host });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : env.port;
      lan.bound.port = port;
      lan.log.info({ host: env.host, port, demo: env.demo, dry_run: env.dryRun }, 'raincheck listening');
      weatherRecord?.backfillSoon(BACKFILL_AFTER_LISTEN_MS);
      // A moment after the start (multicast-dns takes tens of ms to load on a small host): the LAN
      // announcement never delays the first answer.
      setTimeout(() => void lan.mdns.start(), MDNS_START_DELAY_MS).unref();
      void lan.supervisorDiscovery?.announce(port);
      return port;
    },
    stop: async () => {
      // Streams never end on their own: close them first so the server can.
      wired.streams.sse.closeAll();
      await lan.mdns.stop();
      await lan.supervisorDiscovery?.stop();
      // Requests in flight get a grace period; one a client never finishes (a slow body) does not hold the stop.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      cutOff.unref();
      await app.close();
      clearTimeout(cutOff);
      await mqtt?.stop();
      await notify.stop();
      await digest?.stop();
      await anomalies.stop();
      await scheduler.stop();
      await dispatcher.shutdown();
      observer.stop();
      await flowMeters.stop();
      await flow.stop();
      await controllers.stop();
      await irrigation.stop();
      await soilLedger?.stop();
      await weatherRecord?.stop();
      await weather.stop();
      await wired.forecast.stop();
      await wired.ha.stop();
      await haLink?.stop();
      await wired.observability.metricsFeed.stop();
      wired.updates.stop();
      // Config writes hold the service's lock; waiting for an empty preview drains any in flight.
      await config.drain();
      store?.close();
      lan.log.info('stopped');
    },
  };
}

/**
 * Boot leaves garbage (module compilation, schema building, config parsing)
 * that an idle service would keep resident until the next major GC, which may
 * be hours away. One collection shortly after boot returns it. bin/raincheck
 * starts node with --expose-gc for this; without it this does nothing.
 */
function settleMemoryAfterBoot(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  // A few full collections in a row also let V8 shrink the heap it committed while booting.
  if (gc) setTimeout(() => [1, 2, 3, 4].forEach(() => gc()), 2000).unref();
}

/** `[updates]` with the default feed filled in; null when the section is absent (the check is off). */
function updateSettings(section: RaincheckConfig['updates']): UpdateSettings | null {
  if (!section) return null;
  return { check_enabled: section.check_enabled, releases_url: section.releases_url ?? DEFAULT_RELEASES_URL };
}

/** The opt-in release check (GET /updates): it fetches nothing unless the config enables it. */
function startUpdateCheck(deps: UpdateCheckerDeps): UpdateChecker {
  const checker = new UpdateChecker(deps);
  checker.start();
  return checker;
}

/**
 * Temp files of writes a crash interrupted (core/atomic-write.ts): the data
 * directory's own files (forecast cache, install id, wizard draft) and zone
 * photos. The config directory and its snapshots are swept by ConfigService.
 */
function sweepInterruptedWrites(dataDir: string, logger: Logger): void {
  const removed = removeStaleTempFilesIn(dataDir) + removeStaleTempFilesIn(join(dataDir, PHOTO_DIR));
  if (removed > 0)
    logger.child({ module: 'main' }).warn({ removed }, 'removed temp files of interrupted writes');
}

function loadRadar(deps: ConstructorParameters<typeof RadarService>[0]): RadarService {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./radar/radar-service') as typeof import('./radar/radar-service');
  return new module.RadarService(deps);
}

function loadDiagnostics(): typeof Diagnostics {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./ops/diagnostics/diagnostics') as typeof import('./ops/diagnostics/diagnostics'))
    .Diagnostics;
}

/** The advisor, its providers and prompt load on the first explanation asked for. */
function lazyAdvisor(deps: ConstructorParameters<typeof Advisor>[0]): Pick<Advisor, 'explanation'> {
  let advisor: Advisor | null = null;
  return {
    explanation: () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require('./advisor/advisor') as typeof import('./advisor/advisor');
      return (advisor ??= new module.Advisor(deps)).explanation();
    },
  };
}

function loadAnomalyEvidence(): typeof import('./irrigation/anomalies/evidence-source') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./irrigation/anomalies/evidence-source') as typeof import('./irrigation/anomalies/evidence-source');
}

function loadMqttPublisher(): typeof MqttPublisher {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./ha/mqtt/publisher') as typeof import('./ha/mqtt/publisher')).MqttPublisher;
}

function loadHaLink(): typeof HaLink {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./ha/ha-link') as typeof import('./ha/ha-link')).HaLink;
}

/** Zones known to run (snapshot `running` with `running_known`) and those the dispatcher is running. */
function runningZones(snapshot: IrrigationSnapshot | null, dispatched: Iterable<string>): string[] {
  const zones = new Set(dispatched);
  for (const zone of snapshot?.zones ?? []) if (zone.running && zone.running_known) zones.add(zone.slug);
  return [...zones].sort();
}

/** Before any config exists the policy is auth disabled, as for an upgraded install (built when first needed). */
const disabledAuth = once(() => configSchemaModule().authSchema.parse({}));

/**
 * The enforced auth policy, rebuilt only when the config or the account
 * state changes (it is read on every request). In the add-on, HA's ingress
 * proxy is trusted and its user header identifies the HA user.
 */
function authPolicy(config: ConfigService, auth: AuthService, env: RuntimeEnv): () => AuthPolicy {
  let cached: { applied: unknown; setup: boolean; policy: AuthPolicy } | null = null;
  const addon = Boolean(env.vars.SUPERVISOR_TOKEN);
  return () => {
    const applied = config.current;
    const setup = auth.setupComplete();
    if (cached?.applied === applied && cached.setup === setup) return cached.policy;
    const policy = buildPolicy(applied?.config.auth ?? disabledAuth(), {
      addon,
      requireWithoutConfig: setup,
      configPresent: applied !== null,
      ownHostNames: ownHostNames(addon),
    });
    cached = { applied, setup, policy };
    return policy;
  };
}

/** How long after listening the mDNS advertisement starts. */
const MDNS_START_DELAY_MS = 1000;

/** Entry point: `npm start`. HA stops add-ons with SIGTERM; both signals stop gracefully. */
async function run(): Promise<void> {
  let env: RuntimeEnv;
  try {
    env = parseEnv(process.env);
  } catch (err) {
    if (err instanceof EnvError) {
      process.stderr.write(`raincheck: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let stopping = false;
  // At a terminal (`npm run demo`): one plain line with the address, then only warnings and
  // errors as short lines. Anywhere else (Docker, the add-on, a pipe): JSON lines, as before.
  const human = process.stdout.isTTY === true;
  const level = human && !env.vars.LOG_LEVEL ? 'warn' : env.logLevel;
  // Warnings and errors also go to the ring /diagnostics reads, whatever the console shows.
  const logRing = new LogRing();
  const logger = createRootLogger(level, {
    ring: logRing,
    ...(human ? { destination: humanDestination() } : {}),
  });
  const service = await createService(env, { logger, logRing, exit: () => shutdown('restart') });
  const port = await service.listen();
  if (human) process.stdout.write(readyLine(env, port));
  settleMemoryAfterBoot();
  enableOptimizerWhenBusy({ logger, execArgv: process.execArgv });
  const collector = collectWhileIdle();
  // The engine's recompute is an idle service's main allocator: its garbage goes right after it.
  if (collector) service.bus.on('irrigation.snapshot', () => collector.afterBurst());
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    service
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        process.stderr.write(`raincheck: shutdown after ${signal} failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (require.main === module) {
  run().catch((err: unknown) => {
    process.stderr.write(`raincheck: failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
