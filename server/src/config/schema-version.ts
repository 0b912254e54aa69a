/**
 * The config document version this build writes and migrates up to
 * (config/migrate.ts). Its own module so that what only needs the number (the
 * baseline, the demo config, the health route) does not load the schema
 * module (config/schema.ts), which an idle service never runs.
 */
export const CURRENT_SCHEMA_VERSION = 2;
