import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type AnySchema, type ErrorObject } from 'ajv';

/**
 * The community add-on linter (frenck/action-addon-linter, src/lint.py) in
 * TypeScript: its JSON schema (vendored in ./linter, Draft 7) with its
 * "default value" rule, then the checks lint.py runs on config.yaml itself
 * (the community-only checks, version "dev" and build.json, are left out:
 * they apply to the community add-ons repository, not to this one).
 * `errors` fail the lint; `warnings` are printed by it but do not.
 */

export interface LintResult {
  errors: string[];
  warnings: string[];
}

type Config = Record<string, unknown>;

const SCHEMA_FILE = path.join(__dirname, 'linter', 'config.schema.json');

/** The schema as the linter has it, its Python-style named groups in JavaScript spelling. */
export function linterSchema(): Record<string, unknown> {
  const text = fs.readFileSync(SCHEMA_FILE, 'utf8').replace(/\(\?P</g, '(?<');
  return JSON.parse(text) as Record<string, unknown>;
}

function validator() {
  // Python's jsonschema checks no formats unless asked to, and the linter does not ask.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  return ajv.compile(linterSchema() as AnySchema);
}

function schemaError(error: ErrorObject): string {
  const at = error.instancePath === '' ? '' : `${error.instancePath.slice(1)}: `;
  if (error.keyword === 'additionalProperties') {
    return `Additional properties are not allowed ('${String(error.params.additionalProperty)}' was unexpected)`;
  }
  return `${at}${error.message ?? error.keyword}`;
}

/** lint.py's check_is_default: a property equal to its schema default must be removed. */
function defaultErrors(schema: Record<string, unknown>, instance: unknown): string[] {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties || typeof instance !== 'object' || instance === null) return [];
  const object = instance as Config;
  const out: string[] = [];
  for (const [key, sub] of Object.entries(properties)) {
    if ('default' in sub && key in object && JSON.stringify(object[key]) === JSON.stringify(sub.default)) {
      out.push(`'${key}' should be removed, it uses a default value`);
    }
  }
  return out;
}

const DEPRECATED_ARCH = ['armhf', 'armv7', 'i386'];
const MAP_CONFIG = ['config', 'config:rw', 'config:ro'];

function configChecks(config: Config, result: LintResult): void {
  const { errors, warnings } = result;
  for (const arch of (config.arch as string[] | undefined) ?? []) {
    if (DEPRECATED_ARCH.includes(arch)) warnings.push(`Architecture '${arch}' is deprecated`);
  }
  if (config.ingress) {
    if (config.webui) errors.push("'webui' should be removed, Ingress is enabled.");
    if (!config.host_network && (config.ingress_port ?? 8099) === 0)
      errors.push("'ingress_port' this does not run on the host network.");
  }
  const hardware = ['devices', 'gpio', 'uart', 'usb'].some((key) => key in config);
  if (config.full_access && hardware)
    errors.push("'full_access', don't add 'devices', 'uart', 'usb' or 'gpio'");
  if (config.full_access) warnings.push("'full_access' consider using other options instead, like 'devices'");
  if (config.advanced) warnings.push("'advanced' flag is not recommended.");
  if ('auto_uart' in config) errors.push("'auto_uart' is deprecated, use 'uart' instead.");
  if (((config.devices as string[] | undefined) ?? []).some((line) => line.includes(':')))
    errors.push("'devices' uses a deprecated format");
  if (typeof (config.tmpfs ?? false) !== 'boolean') errors.push("'tmpfs' use a deprecated format");
  if ((config.backup ?? 'hot') === 'cold') {
    for (const option of ['backup_pre', 'backup_post'])
      if (option in config) errors.push(`'${option}' is not valid when using cold backups.`);
  }
  if (config.watchdog)
    errors.push("'watchdog', is obsolete. Use the native Docker HEALTHCHECK directive instead.");
  if ('codenotary' in config) errors.push("'codenotary' is deprecated and no longer used.");
  const map = ((config.map as unknown[] | undefined) ?? []).filter((m): m is string => typeof m === 'string');
  if (map.some((m) => MAP_CONFIG.includes(m))) {
    warnings.push("'map' contains the 'config' folder");
    if (
      map.some((m) => m.startsWith('homeassistant_config')) ||
      map.some((m) => m.startsWith('addon_config'))
    )
      errors.push("'map' contains conflicting folders");
  }
}

export function lintAddonConfig(config: Config): LintResult {
  const validate = validator();
  const result: LintResult = { errors: [], warnings: [] };
  if (!validate(config)) result.errors.push(...(validate.errors ?? []).map(schemaError));
  result.errors.push(...defaultErrors(linterSchema(), config));
  configChecks(config, result);
  result.errors.sort();
  return result;
}
