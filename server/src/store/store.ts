import type { Logger } from '../core/logger';
import { AccountsRepository, SessionsRepository } from './accounts';
import { AnnouncementsRepository } from './announcements';
import { closeDatabase, openDatabase, type Database, type OpenOptions } from './database';
import { ControlsRepository } from './controls';
import { DecisionsRepository } from './decisions';
import { DeviceRecordsRepository } from './device-records';
import { FlowAlarmsRepository } from './flow-alarms';
import { ForecastArchiveRepository } from './forecast-archive';
import { schemaVersion } from './migrations';
import { NotificationDeliveriesRepository } from './notification-deliveries';
import { NotificationRoutesRepository } from './notification-routes';
import { PushSubscriptionsRepository } from './push-subscriptions';
import { ReadingsRepository } from './readings';
import { RunsRepository } from './runs';
import { SessionPlansRepository } from './session-plans';
import { TuningDismissalsRepository } from './tuning-dismissals';
import { SoilLedgerRepository } from './soil-ledger';
import { SoilStatesRepository } from './soil-states';
import { TokensRepository } from './tokens';
import { WeatherDaysRepository } from './weather-days';

/** The persistence database and every repository over it, opened and closed together. */
export class Store {
  readonly runs: RunsRepository;
  readonly decisions: DecisionsRepository;
  readonly readings: ReadingsRepository;
  readonly forecastArchive: ForecastArchiveRepository;
  readonly accounts: AccountsRepository;
  readonly sessions: SessionsRepository;
  readonly tokens: TokensRepository;
  readonly pushSubscriptions: PushSubscriptionsRepository;
  readonly controls: ControlsRepository;
  readonly notificationRoutes: NotificationRoutesRepository;
  readonly notificationDeliveries: NotificationDeliveriesRepository;
  readonly sessionPlans: SessionPlansRepository;
  readonly tuningDismissals: TuningDismissalsRepository;
  readonly announcements: AnnouncementsRepository;
  readonly flowAlarms: FlowAlarmsRepository;
  readonly weatherDays: WeatherDaysRepository;
  readonly soilLedger: SoilLedgerRepository;
  readonly soilStates: SoilStatesRepository;
  readonly deviceRecords: DeviceRecordsRepository;

  constructor(readonly db: Database) {
    this.runs = new RunsRepository(db);
    this.decisions = new DecisionsRepository(db);
    this.readings = new ReadingsRepository(db);
    this.forecastArchive = new ForecastArchiveRepository(db);
    this.accounts = new AccountsRepository(db);
    this.sessions = new SessionsRepository(db);
    this.tokens = new TokensRepository(db);
    this.pushSubscriptions = new PushSubscriptionsRepository(db);
    this.controls = new ControlsRepository(db);
    this.notificationRoutes = new NotificationRoutesRepository(db);
    this.notificationDeliveries = new NotificationDeliveriesRepository(db);
    this.sessionPlans = new SessionPlansRepository(db);
    this.tuningDismissals = new TuningDismissalsRepository(db);
    this.announcements = new AnnouncementsRepository(db);
    this.flowAlarms = new FlowAlarmsRepository(db);
    this.weatherDays = new WeatherDaysRepository(db);
    this.soilLedger = new SoilLedgerRepository(db);
    this.soilStates = new SoilStatesRepository(db);
    this.deviceRecords = new DeviceRecordsRepository(db);
  }

  /** Throws when the file cannot be opened or migrated; see tryOpenStore for the boot path. */
  static open(file: string, logger: Logger, options?: OpenOptions): Store {
    return new Store(openDatabase(file, logger, options));
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  /** Runs `fn` in one transaction across repositories: all its writes commit or none do. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * Returns the connection's page cache to the system (SQLite `shrink_memory`):
   * after a one-off bulk write (the weather record's backfill and the ledger
   * replay it triggers) an idle service need not keep those pages resident.
   */
  releaseMemory(): void {
    this.db.pragma('shrink_memory');
  }

  /** Idempotent. */
  close(): void {
    closeDatabase(this.db);
  }
}

export interface StoreOpenResult {
  store: Store | null;
  /** Why the database is unavailable, for health; null when it opened. */
  error: string | null;
}

/**
 * Never throws: the service still starts without its database, with the
 * database-backed routes unmounted and the reason reported in health.
 */
export function tryOpenStore(file: string, logger: Logger, options?: OpenOptions): StoreOpenResult {
  try {
    return { store: Store.open(file, logger, options), error: null };
  } catch (err) {
    const error = `cannot open database ${file}: ${describeError(err)}`;
    logger.child({ module: 'store' }).error({ err }, error);
    return { store: null, error };
  }
}

// Read the message structurally: errors from another realm (a vm context, a worker) fail instanceof Error.
function describeError(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
