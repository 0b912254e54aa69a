/**
 * A config with the two push receivers (spec 4.8): an Ecowitt gateway matched
 * by its PASSKEY and a generic webhook with a path secret. Their secrets are
 * what the log and nesting tests send.
 */

export const PASSKEY = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';
export const GATEWAY_PASSWORD = 'wu-station-password-3141';
export const WEBHOOK_ID = 'shed';
export const WEBHOOK_SECRET = 'webhook-secret-2718281828';

/** A Denver site with one Ecowitt gateway (`console`) matched by `passkey`: the start of the ingest tests' configs. */
export function gatewaySiteLines(passkey: string): string[] {
  return [
    'schema_version = 2',
    '[deployment]',
    'timezone = "America/Denver"',
    '[deployment.location]',
    'lat = 39.7',
    'lon = -105.0',
    '[[sources]]',
    'id = "console"',
    'priority = 100',
    'kind = "ecowitt_ingest"',
    '[sources.config]',
    `passkey = "${passkey}"`,
  ];
}

export const INGEST_CONFIG = [
  ...gatewaySiteLines(PASSKEY),
  '[[sources]]',
  `id = "${WEBHOOK_ID}"`,
  'priority = 90',
  'kind = "http_webhook"',
  '[sources.config]',
  `secret = "${WEBHOOK_SECRET}"`,
  '[[sources.config.fields]]',
  'path = "data.temp_c"',
  'field = "air_temp_f"',
  'unit = "c"',
  '',
].join('\n');
