import type { z } from 'zod';
import { timeZone } from '../core/tz/time-zone';
import type { KindConfigs } from './config-types';
import { interpolateDocument } from './interpolate';
import { formatPath, isPlainObject, type JsonObject, type JsonValue } from './json-walk';
import { meterBindings } from './flow-meter-binding';
import { controllerKind, sourceKind } from './kinds';
import { restrictionAllowedDays } from './restrictions';
import { checkRestrictionRules } from './restriction-checks';
import { checkRunWindows } from './run-window-config';
import { checkSchedules } from './schedule-config';
import { checkMasters } from './master-config';
import type { RaincheckConfig } from './schema';
import { configSchemaModule } from './schema-module';
import { checkSchemaVersion, type ValidationEntry, type ValidationReport } from './validation-report';

/**
 * The validation report (spec 2.6): errors block a save, warnings never do.
 * Each entry names a stable `code`, the JSON path it is about and a message a
 * home owner can act on. The report's types, the empty report and the
 * schema_version check live in validation-report.ts (boot reads them without
 * loading the validator).
 */

export { checkSchemaVersion, emptyReport } from './validation-report';
export type { ValidationEntry, ValidationReport } from './validation-report';

export interface ValidationResult {
  report: ValidationReport;
  /** The interpolated, defaults-filled config; null when there are errors. */
  config: RaincheckConfig | null;
  /** Each entry's `config` block as its kind's schema parsed it; null when there are errors. */
  kindConfigs: KindConfigs | null;
}

/** Range errors the contract names with their own codes (spec 7, 2.5 changelog). */
const RANGE_CODES: [RegExp, string][] = [
  [/^\$\.zones.*\.sessions_per_week$/, 'zone_sessions_per_week_range'],
  [/^\$\.zones.*\.rain_credit_cap_in$/, 'zone_rain_credit_cap_range'],
  [/^\$\.zones.*\.max_run_minutes$/, 'zone_max_run_minutes_range'],
  [/^\$\.deployment\.location\.(lat|lon)$/, 'location_range'],
];

export function validateDocument(doc: unknown, env: NodeJS.ProcessEnv): ValidationResult {
  const errors: ValidationEntry[] = [];
  const warnings: ValidationEntry[] = [];
  const kindConfigs: KindConfigs = { sources: {}, controllers: {} };
  const finish = (config: RaincheckConfig | null): ValidationResult => ({
    report: { ok: errors.length === 0, errors, warnings },
    config: errors.length === 0 ? config : null,
    kindConfigs: errors.length === 0 && config ? kindConfigs : null,
  });

  if (!isPlainObject(doc)) {
    errors.push({ code: 'not_an_object', path: '$', message: 'the config must be an object (a TOML table)' });
    return finish(null);
  }
  const versionError = checkSchemaVersion(doc.schema_version);
  if (versionError) {
    errors.push(versionError);
    return finish(null);
  }

  const { value: interpolated, missing } = interpolateDocument(doc, env);
  for (const ref of missing) {
    errors.push({
      code: 'env_var_missing',
      path: ref.path,
      message: `\${${ref.name}} refers to an environment variable that is not set (write $\${${ref.name}} for a literal)`,
    });
  }

  const parsed = parseWithUnknownKeysAsWarnings(interpolated, warnings);
  if (!parsed.success) {
    errors.push(...parsed.issues.map(issueToEntry));
    return finish(null);
  }
  const config = parsed.data;
  checkKindConfigs(config, errors, warnings, kindConfigs);
  checkReferences(config, errors, warnings);
  checkZoneBindings(config, warnings);
  checkFlowMeters(config, warnings);
  return finish(config);
}

type ParseOutcome = { success: true; data: RaincheckConfig } | { success: false; issues: z.core.$ZodIssue[] };

/**
 * A misspelt key should not block a save, but it must not pass unnoticed
 * either: unknown keys become `unknown_field` warnings and are ignored.
 */
function parseWithUnknownKeysAsWarnings(doc: JsonValue, warnings: ValidationEntry[]): ParseOutcome {
  const { configSchema } = configSchemaModule();
  const first = configSchema.safeParse(doc);
  if (first.success) return { success: true, data: first.data };
  const unknown = first.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
  if (unknown.length === 0) return { success: false, issues: first.error.issues };

  const pruned = structuredClone(doc);
  for (const issue of unknown) {
    const parent = resolve(pruned, issue.path);
    for (const key of issue.keys) {
      warnings.push({
        code: 'unknown_field',
        path: formatPath([...issue.path, key]),
        message: `"${key}" is not a known setting here and is ignored (a typo?)`,
      });
      if (isPlainObject(parent)) delete parent[key];
    }
  }
  const second = configSchema.safeParse(pruned);
  return second.success
    ? { success: true, data: second.data }
    : { success: false, issues: second.error.issues };
}

function resolve(root: JsonValue, path: PropertyKey[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, JsonValue>)[part as string];
  }
  return node;
}

function issueToEntry(issue: z.core.$ZodIssue): ValidationEntry {
  const path = formatPath(issue.path);
  const named = RANGE_CODES.find(([pattern]) => pattern.test(path));
  return { code: named ? named[1] : issue.code, path, message: issue.message };
}

/** Validates each entry's block with its kind's schema and keeps what the schema made of it in `parsed`. */
function checkKindConfigs(
  config: RaincheckConfig,
  errors: ValidationEntry[],
  warnings: ValidationEntry[],
  parsed: KindConfigs,
): void {
  config.sources.forEach((source, i) => {
    const kind = sourceKind(source.kind);
    const base = ['sources', i, 'config'];
    if (!kind) {
      warnings.push({
        code: 'source_kind_unknown',
        path: formatPath(['sources', i, 'kind']),
        message: `source "${source.id}": kind "${source.kind}" is not supported by this build; it will not run`,
      });
      return;
    }
    const data = parseKindBlock(kind.configSchema, source.config, base, errors);
    if (data !== undefined) parsed.sources[source.id] = data;
    for (const adj of kind.adjustments?.(source.config) ?? []) {
      warnings.push({ code: adj.code, path: formatPath([...base, ...adj.path]), message: adj.message });
    }
  });
  config.controllers.forEach((controller, i) => {
    const kind = controllerKind(controller.kind);
    if (!kind) {
      warnings.push({
        code: 'controller_kind_unknown',
        path: formatPath(['controllers', i, 'kind']),
        message: `controller "${controller.id}": kind "${controller.kind}" is not supported by this build`,
      });
      return;
    }
    const data = parseKindBlock(kind.configSchema, controller.config, ['controllers', i, 'config'], errors);
    if (data !== undefined) parsed.controllers[controller.id] = data;
  });
}

/** The schema's output for the block, or undefined after pushing its issues as errors. */
function parseKindBlock(
  schema: z.ZodType,
  block: Record<string, unknown>,
  base: (string | number)[],
  errors: ValidationEntry[],
): unknown {
  const result = schema.safeParse(block);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    errors.push({ code: issue.code, path: formatPath([...base, ...issue.path]), message: issue.message });
  }
  return undefined;
}

function checkReferences(
  config: RaincheckConfig,
  errors: ValidationEntry[],
  warnings: ValidationEntry[],
): void {
  pushDuplicates(
    config.sources.map((s) => s.id),
    'sources',
    'duplicate_source_id',
    errors,
  );
  pushDuplicates(
    config.controllers.map((c) => c.id),
    'controllers',
    'duplicate_controller_id',
    errors,
  );

  const defaults = config.controllers.filter((c) => c.default).length;
  if (config.controllers.length > 0 && defaults !== 1) {
    errors.push({
      code: 'default_controller_count',
      path: '$.controllers',
      message: `exactly one controller must have default = true; ${defaults} do`,
    });
  }

  const controllerIds = new Set(config.controllers.map((c) => c.id));
  for (const [slug, zone] of Object.entries(config.zones)) {
    if (zone.controller_id && !controllerIds.has(zone.controller_id)) {
      errors.push({
        code: 'zone_controller_unknown',
        path: formatPath(['zones', slug, 'controller_id']),
        message: `zone "${slug}" names controller "${zone.controller_id}", which is not configured`,
      });
    }
  }

  // An unknown zone would make every local date of the engine invalid (a 500 on save, no snapshot).
  const timezone = config.deployment.timezone;
  if (timezone && !timeZone(timezone).isValid) {
    errors.push({
      code: 'timezone_unknown',
      path: '$.deployment.timezone',
      message: `"${timezone}" is not an IANA time zone name (for example "America/New_York"); omit it to derive the zone from lat/lon`,
    });
  }

  const restrictions = config.engine.restrictions;
  if (restrictions && restrictionAllowedDays(restrictions).length === 0) {
    errors.push({
      code: 'restrictions_no_weekday',
      path: '$.engine.restrictions',
      message: 'these watering restrictions together allow no weekday; nothing could ever water',
    });
  }

  checkRestrictionRules(config.restrictions, errors);
  checkRunWindows(config, errors);
  checkSchedules(config.schedules, config.zones, errors);
  checkMasters(config, errors);

  const sourceIds = new Set(config.sources.map((s) => s.id));
  const pinned: [string, string][] = [
    ...Object.entries(config.engine.overrides).map(([field, id]): [string, string] => [
      `overrides.${field}`,
      id,
    ]),
    ...Object.entries(config.engine.field_source_chains).flatMap(([field, ids]) =>
      ids.map((id, i): [string, string] => [`field_source_chains.${field}[${i}]`, id]),
    ),
  ];
  for (const [where, id] of pinned) {
    if (!sourceIds.has(id)) {
      warnings.push({
        code: 'override_source_unknown',
        path: `$.engine.${where}`,
        message: `source "${id}" is not configured; this pin is ignored`,
      });
    }
  }
}

function pushDuplicates(ids: string[], section: string, code: string, errors: ValidationEntry[]): void {
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) {
      errors.push({
        code,
        path: formatPath([section, i, 'id']),
        message: `${section} id "${id}" is used twice`,
      });
    }
    seen.add(id);
  });
}

/**
 * The three binding warnings, honest per kind: a zone is bound when its
 * controller accepts any zone, its station parses for the kind, or the
 * controller's own zone map covers its slug.
 */
/**
 * Flow meters that cannot report: a `source` meter naming no configured
 * source, a `controller` meter on a controller that reports no flow (only an
 * OpenSprinkler with `flow_pulse_unit` does).
 */
function checkFlowMeters(config: RaincheckConfig, warnings: ValidationEntry[]): void {
  const sources = new Set(config.sources.map((s) => s.id));
  for (const binding of meterBindings(config)) {
    const { meter } = binding;
    const path = binding.key.startsWith('zone:')
      ? formatPath(['zones', binding.key.slice('zone:'.length), 'flow_meter'])
      : formatPath([
          'controllers',
          config.controllers.findIndex((c) => c.id === binding.controllerId),
          'flow_meter',
        ]);
    if (meter.kind === 'source' && !sources.has(meter.source_id ?? '')) {
      warnings.push({
        code: 'flow_meter_source_unknown',
        path,
        message: `the flow meter reads source "${meter.source_id}", which is not configured; it will report nothing`,
      });
    }
    if (meter.kind !== 'controller') continue;
    const controller = config.controllers.find((c) => c.id === binding.controllerId);
    const reportsFlow = controller?.kind === 'opensprinkler' && Boolean(controller.config.flow_pulse_unit);
    if (!reportsFlow) {
      warnings.push({
        code: 'flow_meter_no_sensor',
        path,
        message:
          `the flow meter reads controller "${binding.controllerId ?? '?'}", which reports no flow ` +
          '(an OpenSprinkler with a flow sensor and flow_pulse_unit does)',
      });
    }
  }
}

function checkZoneBindings(config: RaincheckConfig, warnings: ValidationEntry[]): void {
  const byId = new Map(config.controllers.map((c) => [c.id, c]));
  const fallback = config.controllers.find((c) => c.default);
  for (const [slug, zone] of Object.entries(config.zones)) {
    const controller = zone.controller_id ? byId.get(zone.controller_id) : fallback;
    const at = formatPath(['zones', slug]);
    if (!controller) {
      if (!zone.controller_id) {
        warnings.push({ code: 'zone_unbound', path: at, message: `zone "${slug}": no controller waters it` });
      }
      continue;
    }
    const kind = controllerKind(controller.kind);
    if (!kind || !kind.adapterBuilt) {
      warnings.push({
        code: 'zone_controller_not_built',
        path: at,
        message: `zone "${slug}": controller "${controller.id}" (${controller.kind}) cannot be driven by this build`,
      });
      if (!kind) continue;
    }
    if (kind.acceptsAnyZone || kind.zoneMapCovers?.(controller.config as JsonObject, slug)) continue;
    const station = zone.controller_station?.trim();
    if (!station) {
      warnings.push({
        code: 'zone_unbound',
        path: formatPath(['zones', slug, 'controller_station']),
        message: `zone "${slug}": no controller station set and controller "${controller.id}" maps none to it`,
      });
      continue;
    }
    if (kind.parseStation && !kind.parseStation(station)) {
      warnings.push({
        code: 'zone_station_unparseable',
        path: formatPath(['zones', slug, 'controller_station']),
        message:
          `zone "${slug}": station "${station}" cannot be used by controller "${controller.id}" ` +
          `(${controller.kind}); it expects ${kind.stationExpectation ?? 'a station of its own'}`,
      });
    }
  }
}
