import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ConfigService } from '../config/config-service';
import type { RuntimeEnv } from '../config/env';
import type { Clock } from '../core/clock';
import type { HealthRegistry } from '../core/health';
import type { Logger } from '../core/logger';
import type { Metrics } from '../core/metrics';
import type { ElevationClient } from '../location/elevation';
import type { Store } from '../store/store';
import type { WeatherService } from '../weather/weather-service';
import type { ForecastService } from '../forecast/forecast-service';
import type { IrrigationService } from '../irrigation/irrigation-service';
import type { ActionApi } from '../irrigation/lazy-action-executor';
import type { TuningApi } from '../irrigation/tuning/lazy-tuning';
import type { AnomalyService } from '../irrigation/anomalies/anomaly-service';
import type { Advisor } from '../advisor/advisor';
import type { CatalogView } from '../ha/entities/descriptor';
import type { HaSiteFacts } from '../ha/ha-facts';
import type { HaLink } from '../ha/ha-link';
import type { NotifyService } from '../notify/notify-service';
import type { SseHub, StreamGuard } from './sse';

/** What route handlers may use. Built once in main.ts. */
export interface HttpDeps {
  env: RuntimeEnv;
  clock: Clock;
  logger: Logger;
  config: ConfigService;
  /** Null when the database could not be opened: history-backed routes stay unmounted. */
  store: Store | null;
  health: HealthRegistry;
  metrics: Metrics;
  sse: SseHub;
  elevation: ElevationClient;
  weather: WeatherService;
  forecast: ForecastService;
  irrigation: IrrigationService;
  actions: ActionApi;
  /** Null without the database: the tuning routes stay unmounted and apply has nothing to derive. */
  tuning: TuningApi | null;
  /** GET /irrigation/anomalies (cached; announces `anomaly.new`). */
  anomalies: Pick<AnomalyService, 'list'>;
  /** GET /irrigation/explanation: the advisor's phrasing, or the engine's own text. */
  advisor: Pick<Advisor, 'explanation'>;
  /** The soil water ledger (absent or null without a database): GET /irrigation/soil. */
  soil?: import('../irrigation/soil/soil-ledger-service').SoilLedgerService | null;
  /** What the entity catalog reads (null before a config exists): /sensors/manifest. */
  catalogView: () => CatalogView | null;
  /** The source kinds this build runs, for the catalogs. */
  sourceKinds: ReadonlyMap<string, import('../weather/source').SourceKindDefinition>;
  /** Controller kinds this build drives, and outgoing HTTP (loopback-only in tests): the wizard's probes. */
  controllerKinds: ReadonlyMap<string, import('../controllers/kinds').AnyControllerKind>;
  fetch: typeof fetch;
  /** LAN discovery listen time (shortened in tests). */
  discoveryListenMs: number;
  discoveryPort: number;
  /** The mDNS socket the wizard's controller sweep opens (tests inject one); the real one when absent. */
  discoveryMdns?: import('../wizard/controller-sweep').MdnsFactory;
  installId: string | null;
  startedAtMs: number;
  /** Guard for the privileged surface (spec 5.8), used as a route's preHandler. */
  privileged: preHandlerAsyncHookHandler;
  /** True when the request carries valid credentials or auth is disabled (completed by the auth issue). */
  isAuthenticated: (request: FastifyRequest) => boolean;
  /**
   * For a stream: a check that stays true while the credential it was opened
   * with (an API token, a session) is valid; null when access does not rest on
   * one (auth disabled, a trusted network, a proxy identity).
   */
  streamGuard: (request: FastifyRequest) => StreamGuard | null;
  authRequired: () => boolean;
  /** Notifications: the VAPID key, routing, status and test sends (/push/*, /notifications). */
  notify: NotifyService;
  /** Home Assistant, when the environment configures it (absent or link null: standalone). */
  ha?: HttpHaDeps;
  /** POST /backup/restore size limits (tests shrink them; ops/restore/restore-service.ts has the defaults). */
  restoreLimits?: { maxUploadBytes: number; maxUnpackedBytes: number };
  /** GET /updates and the manifest's `update` entity: the opt-in release check (absent: never checks). */
  updates?: { status(): import('../ops/updates/update-checker').UpdatesStatus };
}

/** What routes read of Home Assistant: the link (null when not configured) and its location facts. */
export interface HttpHaDeps {
  link: Pick<HaLink, 'reachable' | 'getStates'> | null;
  facts: () => HaSiteFacts | null;
}

/** Adds one domain's routes to the scope it is given; the scope carries the mount prefix. */
export type RouteTable = (scope: FastifyInstance) => void;

/** One domain's routes, by where they are mounted. */
export interface DomainRoutes {
  /** Under /api/v1 and the legacy /api. */
  shared?: RouteTable;
  /** Under /api/v1 only. */
  v1Only?: RouteTable;
  /** At the origin root (e.g. /metrics). */
  root?: RouteTable;
}
