import type { RequestHandler, Router } from 'express';
import type { ConfigService } from '../config/config-service';
import type { RuntimeEnv } from '../config/env';
import type { Clock } from '../core/clock';
import type { HealthRegistry } from '../core/health';
import type { Logger } from '../core/logger';
import type { Metrics } from '../core/metrics';
import type { ElevationClient } from '../location/elevation';
import type { Store } from '../store/store';
import type { SseHub } from './sse';

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
  installId: string | null;
  startedAtMs: number;
  /** Guard for the privileged surface (spec 5.8). */
  privileged: RequestHandler;
  /** True when the request carries valid credentials or auth is disabled (completed by the auth issue). */
  isAuthenticated: (req: Parameters<RequestHandler>[0]) => boolean;
  authRequired: () => boolean;
}

/** One domain's routes, by where they are mounted. */
export interface DomainRoutes {
  /** Under /api/v1 and the legacy /api. */
  shared?: Router;
  /** Under /api/v1 only. */
  v1Only?: Router;
  /** At the origin root (e.g. /metrics). */
  root?: Router;
}
