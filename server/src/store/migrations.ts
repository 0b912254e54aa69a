import type { Logger } from '../core/logger';
import type { Database } from './database';

export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: Database): void;
}

/** Raised when the file was written by a newer build: migrating down is not possible, so refuse it. */
export class DatabaseTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `database schema version ${found} is newer than this build supports (${supported}); ` +
        'run a newer raincheck release or restore a backup taken by this one',
    );
    this.name = 'DatabaseTooNewError';
  }
}

const INITIAL_SCHEMA = `
  CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT,
    zone          TEXT NOT NULL,
    start_epoch   INTEGER NOT NULL,
    duration_s    INTEGER NOT NULL,
    skip_reason   TEXT,
    source        TEXT NOT NULL,
    status        TEXT NOT NULL
                  CHECK (status IN ('intended', 'running', 'completed', 'aborted', 'skipped')),
    controller_id TEXT,
    applied_mm    REAL,
    volume_gal    REAL,
    note          TEXT,
    cycle_index   INTEGER,
    cycle_count   INTEGER
  );
  CREATE INDEX runs_by_start ON runs (start_epoch);
  CREATE INDEX runs_by_zone_start ON runs (zone, start_epoch);

  CREATE TABLE daily_decisions (
    date_local TEXT NOT NULL,
    kind       TEXT NOT NULL,
    epoch      INTEGER NOT NULL,
    zones      TEXT NOT NULL,
    PRIMARY KEY (date_local, kind)
  );
  CREATE INDEX daily_decisions_by_epoch ON daily_decisions (epoch);

  CREATE TABLE verdict_transitions (
    id               INTEGER PRIMARY KEY,
    epoch            INTEGER NOT NULL,
    verdict          TEXT NOT NULL,
    previous_verdict TEXT,
    reason           TEXT NOT NULL
  );
  CREATE INDEX verdict_transitions_by_epoch ON verdict_transitions (epoch);

  CREATE TABLE readings (
    epoch     INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    value     REAL NOT NULL,
    PRIMARY KEY (source_id, field, epoch)
  ) WITHOUT ROWID;
  CREATE INDEX readings_by_epoch ON readings (epoch);

  CREATE TABLE forecast_archive (
    track        TEXT NOT NULL,
    target_epoch INTEGER NOT NULL,
    lead_h       INTEGER NOT NULL,
    fetched_at   INTEGER NOT NULL,
    provider     TEXT NOT NULL,
    model        TEXT,
    pop_pct      INTEGER,
    precip_in    REAL,
    PRIMARY KEY (track, target_epoch, lead_h, fetched_at)
  ) WITHOUT ROWID;
  CREATE INDEX forecast_archive_by_lead ON forecast_archive (track, lead_h, target_epoch, fetched_at);

  CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    created_epoch INTEGER NOT NULL
  );

  CREATE TABLE sessions (
    token_hash    TEXT PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_epoch INTEGER NOT NULL,
    expires_epoch INTEGER NOT NULL
  );
  CREATE INDEX sessions_by_expiry ON sessions (expires_epoch);
  CREATE INDEX sessions_by_account ON sessions (account_id);

  CREATE TABLE api_tokens (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    name            TEXT NOT NULL,
    token_hash      TEXT NOT NULL UNIQUE,
    created_epoch   INTEGER NOT NULL,
    last_used_epoch INTEGER
  );

  CREATE TABLE push_subscriptions (
    endpoint      TEXT PRIMARY KEY,
    p256dh        TEXT NOT NULL,
    auth          TEXT NOT NULL,
    created_epoch INTEGER NOT NULL
  );

  CREATE TABLE controls (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
`;

/**
 * The learning loop (issue 20): what each scheduled session was planned to be
 * (the run cap's evidence), the owner's silenced tuning suggestions, and what
 * has already been announced (anomalies, the weekly digest) so a restart does
 * not announce it again.
 */
const LEARNING_SCHEMA = `
  CREATE TABLE session_plans (
    session_id       TEXT PRIMARY KEY,
    zone             TEXT NOT NULL,
    date_local       TEXT NOT NULL,
    epoch            INTEGER NOT NULL,
    model            TEXT NOT NULL,
    planned_seconds  INTEGER NOT NULL,
    uncapped_seconds INTEGER NOT NULL,
    session_capped   INTEGER NOT NULL CHECK (session_capped IN (0, 1)),
    max_run_minutes  INTEGER
  );
  CREATE INDEX session_plans_by_zone ON session_plans (zone, epoch);

  CREATE TABLE tuning_dismissals (
    zone              TEXT NOT NULL,
    field             TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('snooze', 'permanent')),
    recommendation_id TEXT NOT NULL,
    created_epoch     INTEGER NOT NULL,
    expires_epoch     INTEGER,
    PRIMARY KEY (zone, field, kind)
  ) WITHOUT ROWID;

  CREATE TABLE announcements (
    key         TEXT PRIMARY KEY,
    first_epoch INTEGER NOT NULL,
    last_epoch  INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

/**
 * The daily weather record (one row per local day; `sources` holds each
 * field's origin and coverage as JSON), the soil water ledger (one row per
 * zone and local day, closing depletion as [lo, hi], lo = hi when known) and
 * the soil states the owner or a probe declared.
 */
const SOIL_LEDGER_SCHEMA = `
  CREATE TABLE weather_days (
    date_local    TEXT PRIMARY KEY,
    tmax_c        REAL,
    tmin_c        REAL,
    rh_max_pct    REAL,
    rh_min_pct    REAL,
    rh_mean_pct   REAL,
    wind_2m_ms    REAL,
    rs_mj_m2      REAL,
    rain_mm       REAL,
    et0_native_mm REAL,
    sources       TEXT NOT NULL,
    updated_epoch INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE soil_ledger (
    zone                TEXT NOT NULL,
    date_local          TEXT NOT NULL,
    taw_mm              REAL NOT NULL,
    raw_mm              REAL NOT NULL,
    et0_mm              REAL,
    et0_method          TEXT,
    kc                  REAL NOT NULL,
    ks                  REAL,
    etc_mm              REAL,
    rain_mm             REAL,
    rain_source         TEXT NOT NULL,
    rain_credited_mm    REAL,
    irrigation_seconds  INTEGER NOT NULL,
    irrigation_gross_mm REAL NOT NULL,
    irrigation_net_mm   REAL NOT NULL,
    irrigation_evidence TEXT NOT NULL,
    drainage_mm         REAL,
    depletion_lo_mm     REAL NOT NULL,
    depletion_hi_mm     REAL NOT NULL,
    range_reason        TEXT,
    detail              TEXT NOT NULL,
    updated_epoch       INTEGER NOT NULL,
    PRIMARY KEY (zone, date_local)
  ) WITHOUT ROWID;

  CREATE TABLE soil_states (
    id            INTEGER PRIMARY KEY,
    zone          TEXT NOT NULL,
    date_local    TEXT NOT NULL,
    depletion_mm  REAL NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('owner', 'probe')),
    epoch         INTEGER NOT NULL,
    note          TEXT
  );
  CREATE INDEX soil_states_by_zone_date ON soil_states (zone, date_local);
`;

/**
 * Migration 8: each run's spec 2.5 record (no internal id) as JSON text in
 * `run_records`, beside the row and kept in step by triggers on insert and on
 * any change of a record column (a deleted run takes its record with it). The
 * history and json export bodies concatenate these texts instead of rendering
 * 60,000 json_object() calls per request (a 10-year ledger: 52 -> 17 ms in
 * SQLite). A table of its own, not a column of `runs`: the csv export, the
 * engine and the tuning read `runs` and would otherwise fill SQLite's page
 * cache with text they never use. The column list is frozen here: a later
 * migration that adds a record column to `runs` recreates both triggers and
 * refills the table. A test holds the stored text equal to a live rendering
 * (test/store/run-records.test.ts).
 */
const RUN_RECORD_COLUMNS = [
  'session_id',
  'zone',
  'start_epoch',
  'duration_s',
  'skip_reason',
  'source',
  'status',
  'controller_id',
  'applied_mm',
  'volume_gal',
  'note',
  'cycle_index',
  'cycle_count',
  'evidence',
  'mean_flow_gpm',
];
const runRecordJson = (row: string): string =>
  `json_object(${RUN_RECORD_COLUMNS.map((c) => `'${c}', ${row}.${c}`).join(', ')})`;
const RUN_RECORDS_SCHEMA = `
  CREATE TABLE run_records (
    id    INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    json  TEXT NOT NULL
  );
  INSERT INTO run_records (id, json) SELECT id, ${runRecordJson('runs')} FROM runs;
  CREATE TRIGGER run_records_on_insert AFTER INSERT ON runs
  BEGIN
    INSERT INTO run_records (id, json) VALUES (NEW.id, ${runRecordJson('NEW')});
  END;
  CREATE TRIGGER run_records_on_update AFTER UPDATE OF ${RUN_RECORD_COLUMNS.join(', ')} ON runs
  BEGIN
    INSERT OR REPLACE INTO run_records (id, json) VALUES (NEW.id, ${runRecordJson('NEW')});
  END;
`;

/** Migration 10: /devices records survive a restart (store/device-records.ts). */
const DEVICE_RECORDS_SCHEMA = `
  CREATE TABLE device_records (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    model           TEXT,
    serial          TEXT,
    firmware        TEXT,
    host            TEXT,
    battery_v       REAL,
    rssi_dbm        REAL,
    last_seen_epoch INTEGER,
    status_note     TEXT
  ) WITHOUT ROWID;
  CREATE INDEX device_records_by_source ON device_records (source_id);
  CREATE TABLE device_channels (
    device_id       TEXT NOT NULL REFERENCES device_records (id) ON DELETE CASCADE,
    key             TEXT NOT NULL,
    last_seen_epoch INTEGER,
    battery         REAL,
    PRIMARY KEY (device_id, key)
  ) WITHOUT ROWID;
`;

/**
 * Migration 9: `runs.evidence` may say `simulated` (a demo's dry-run valve,
 * whose pretend seconds water the demo's synthetic yard). SQLite cannot change
 * a column's CHECK in place, so the table is rebuilt the documented way
 * (create, copy, drop, rename) with the same columns and row ids, and its
 * indexes and run-record triggers are made again; `run_records` keeps its
 * rows (their ids are the runs' ids).
 */
const RUNS_WITH_SIMULATED_EVIDENCE = `
  CREATE TABLE runs_v9 (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT,
    zone          TEXT NOT NULL,
    start_epoch   INTEGER NOT NULL,
    duration_s    INTEGER NOT NULL,
    skip_reason   TEXT,
    source        TEXT NOT NULL,
    status        TEXT NOT NULL
                  CHECK (status IN ('intended', 'running', 'completed', 'aborted', 'skipped')),
    controller_id TEXT,
    applied_mm    REAL,
    volume_gal    REAL,
    note          TEXT,
    cycle_index   INTEGER,
    cycle_count   INTEGER,
    evidence      TEXT
                  CHECK (evidence IS NULL OR evidence IN ('observed', 'commanded', 'metered', 'simulated')),
    mean_flow_gpm REAL
  );
  INSERT INTO runs_v9 (id, ${RUN_RECORD_COLUMNS.join(', ')}) SELECT id, ${RUN_RECORD_COLUMNS.join(', ')} FROM runs;
  DROP TABLE runs;
  ALTER TABLE runs_v9 RENAME TO runs;
  CREATE INDEX runs_by_start ON runs (start_epoch);
  CREATE INDEX runs_by_zone_start ON runs (zone, start_epoch);
  CREATE INDEX runs_by_session ON runs (session_id) WHERE session_id IS NOT NULL;
  CREATE INDEX runs_open ON runs (status) WHERE status IN ('intended', 'running');
  CREATE INDEX runs_metered ON runs (zone, start_epoch) WHERE mean_flow_gpm IS NOT NULL;
  CREATE TRIGGER run_records_on_insert AFTER INSERT ON runs
  BEGIN
    INSERT INTO run_records (id, json) VALUES (NEW.id, ${runRecordJson('NEW')});
  END;
  CREATE TRIGGER run_records_on_update AFTER UPDATE OF ${RUN_RECORD_COLUMNS.join(', ')} ON runs
  BEGIN
    INSERT OR REPLACE INTO run_records (id, json) VALUES (NEW.id, ${runRecordJson('NEW')});
  END;
`;

/**
 * Ordered, append-only. A released migration is never edited: schema changes
 * ship as a new entry so every install walks the same path.
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: (db) => db.exec(INITIAL_SCHEMA) },
  {
    version: 2,
    name: 'run sessions and open runs are looked up directly',
    up: (db) =>
      db.exec(`
        CREATE INDEX runs_by_session ON runs (session_id) WHERE session_id IS NOT NULL;
        CREATE INDEX runs_open ON runs (status) WHERE status IN ('intended', 'running');
      `),
  },
  {
    version: 3,
    name: 'notification routing choices and delivery history',
    up: (db) =>
      db.exec(`
        CREATE TABLE notification_routes (
          event   TEXT NOT NULL,
          channel TEXT NOT NULL,
          enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
          PRIMARY KEY (event, channel)
        ) WITHOUT ROWID;

        CREATE TABLE notification_deliveries (
          id       INTEGER PRIMARY KEY,
          epoch    INTEGER NOT NULL,
          channel  TEXT NOT NULL,
          event    TEXT NOT NULL,
          tag      TEXT NOT NULL,
          title    TEXT NOT NULL,
          status   TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'dropped')),
          attempts INTEGER NOT NULL,
          detail   TEXT
        );
        CREATE INDEX notification_deliveries_by_channel ON notification_deliveries (channel, id);
      `),
  },
  {
    version: 4,
    name: 'learning loop: session plans, tuning dismissals, announcements',
    up: (db) => db.exec(LEARNING_SCHEMA),
  },
  {
    version: 5,
    name: 'run evidence, metered flow and flow alarms',
    up: (db) =>
      db.exec(`
        ALTER TABLE runs ADD COLUMN evidence TEXT
          CHECK (evidence IS NULL OR evidence IN ('observed', 'commanded', 'metered'));
        ALTER TABLE runs ADD COLUMN mean_flow_gpm REAL;
        CREATE INDEX runs_metered ON runs (zone, start_epoch) WHERE mean_flow_gpm IS NOT NULL;
        CREATE TABLE flow_alarms (
          id            INTEGER PRIMARY KEY,
          epoch         INTEGER NOT NULL,
          zone          TEXT NOT NULL,
          controller_id TEXT,
          kind          TEXT NOT NULL CHECK (kind IN ('high', 'low', 'none')),
          rate_gpm      REAL,
          baseline_gpm  REAL,
          stopped       INTEGER NOT NULL DEFAULT 0,
          session_id    TEXT,
          note          TEXT NOT NULL
        );
        CREATE INDEX flow_alarms_by_epoch ON flow_alarms (epoch);
      `),
  },
  {
    version: 6,
    name: 'daily weather record, soil water ledger and declared soil states',
    up: (db) => db.exec(SOIL_LEDGER_SCHEMA),
  },
  {
    version: 7,
    name: 'soil ledger: the basis of each row irrigation depth (rate or meter)',
    up: (db) =>
      db.exec(`
        ALTER TABLE soil_ledger ADD COLUMN irrigation_basis TEXT NOT NULL DEFAULT 'rate'
          CHECK (irrigation_basis IN ('none', 'rate', 'meter', 'meter_and_rate'));
        UPDATE soil_ledger SET irrigation_basis = 'none' WHERE irrigation_seconds = 0;
      `),
  },
  {
    version: 8,
    name: "run records: each run's JSON record kept beside it (the history bodies' rendering)",
    up: (db) => db.exec(RUN_RECORDS_SCHEMA),
  },
  {
    version: 9,
    name: 'run evidence may be simulated (the demo yard)',
    up: (db) => db.exec(RUNS_WITH_SIMULATED_EVIDENCE),
  },
  {
    version: 10,
    name: "devices: each source device's last record and its channels' last seen and battery",
    up: (db) => db.exec(DEVICE_RECORDS_SCHEMA),
  },
];

export function latestVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.at(-1)?.version ?? 0;
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migration "${m.name}" has version ${m.version}, expected ${i + 1}`);
  });
}

/** Throws DatabaseTooNewError without touching the file when it is ahead of this build. */
export function assertNotTooNew(db: Database, migrations: readonly Migration[] = MIGRATIONS): void {
  const found = schemaVersion(db);
  const supported = latestVersion(migrations);
  if (found > supported) throw new DatabaseTooNewError(found, supported);
}

/**
 * Applies pending migrations, each in its own transaction together with its
 * user_version bump, so a crash leaves the database at a whole version.
 * Foreign keys are off while migrating (table rebuilds need that) and checked
 * before each commit instead.
 */
export function runMigrations(
  db: Database,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): number {
  assertOrdered(migrations);
  assertNotTooNew(db, migrations);
  const pending = migrations.filter((m) => m.version > schemaVersion(db));
  if (pending.length === 0) return 0;
  db.pragma('foreign_keys = OFF');
  try {
    for (const m of pending) applyOne(db, m, logger);
  } finally {
    db.pragma('foreign_keys = ON');
  }
  return pending.length;
}

function applyOne(db: Database, m: Migration, logger: Logger): void {
  db.transaction(() => {
    m.up(db);
    const violations = db.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) throw new Error(`migration ${m.version} "${m.name}" broke foreign keys`);
    db.pragma(`user_version = ${m.version}`);
  }).immediate();
  logger.info({ version: m.version, migration: m.name }, 'database migration applied');
}
