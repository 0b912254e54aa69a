import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { controllerSchema, type ControllerEntry } from '../config/schema';
import { asControllerError, ControllerError } from '../controllers/errors';
import type { AnyControllerKind } from '../controllers/kinds';
import type { ControllerAdapter } from '../controllers/types';
import { WizardError, withDeadline } from './wizard-error';

/**
 * POST /wizard/test_controller and /wizard/scan_zones: build a throwaway
 * adapter for a posted controller entry (no stations bound, nothing watered),
 * read it once and drop it.
 *
 * Decisions:
 * - test_controller reads status (and lists zones when the kind can, for
 *   `zone_count`). Kinds it cannot probe answer 422 `controller_unsupported`:
 *   `mqtt_command` (needs a broker session and state topics) and
 *   `ha_service_call` (needs the live Home Assistant link); so does a kind
 *   whose readStatus is unsupported (fire-and-forget `http_generic`).
 * - Failures keep the controller codes of spec 7: a rejected credential 424
 *   `controller_auth_failed`, rate limiting 429 `controller_rate_limited`,
 *   anything else 502 `controller_unreachable` (spec 4.6 "502 unreachable").
 *   The body adds `reachable` (true for 424/429: the device answered).
 * - scan_zones answers 422 `controller_unsupported` for the kinds spec 4.6
 *   names, and 502 `zone_scan_failed` for every other failure, including a
 *   kind without zone discovery; `cause` carries the controller code.
 * - `master_enabled` and `firmware` come from the device facts of the status
 *   read (OpenSprinkler: `en`, operation enabled, and `fwv`/`fwm`); null for
 *   kinds that do not report them.
 * - Cloud kinds (rachio) add `discovered_device` and `rate_limit_remaining`,
 *   read from the adapter's optional probe (RachioController.discoverDevice,
 *   rateLimitRemaining); null when the adapter has none.
 */

export const PROBE_TIMEOUT_MS = 20_000;
export const SCAN_UNSUPPORTED_KINDS: ReadonlySet<string> = new Set([
  'mqtt_command',
  'ha_service_call',
  'esphome_native',
]);
const TEST_UNSUPPORTED_KINDS: ReadonlySet<string> = new Set(['mqtt_command', 'ha_service_call']);
export const CLOUD_CONTROLLER_KINDS: ReadonlySet<string> = new Set(['rachio']);

export interface ControllerProbeDeps {
  kinds: ReadonlyMap<string, AnyControllerKind>;
  fetch: typeof fetch;
  clock: Clock;
  logger: Logger;
  timeoutMs?: number;
}

export interface DiscoveredDevice {
  device_id: string;
  name: string | null;
  device_count: number;
}

export interface TestControllerResult {
  ok: true;
  reachable: true;
  master_enabled: boolean | null;
  water_level_pct: number | null;
  zone_count: number | null;
  firmware: string | null;
  discovered_device?: DiscoveredDevice | null;
  rate_limit_remaining?: string | null;
}

export interface ScannedZoneEntry {
  station_id: string;
  name: string;
}

/** The optional extras a cloud adapter may expose for the wizard. */
interface CloudProbe {
  discoverDevice(): Promise<DiscoveredDevice>;
  readonly rateLimitRemaining: string | null;
}

function isCloudProbe(adapter: ControllerAdapter): adapter is ControllerAdapter & CloudProbe {
  return typeof (adapter as Partial<CloudProbe>).discoverDevice === 'function';
}

export async function testController(
  deps: ControllerProbeDeps,
  posted: unknown,
): Promise<TestControllerResult> {
  const entry = parseEntry(posted);
  if (TEST_UNSUPPORTED_KINDS.has(entry.kind)) throw unsupportedKind(entry.kind, 'be tested from the wizard');
  return probe(deps, entry, async (adapter) => {
    const status = await adapter.readStatus();
    const zones = adapter.capabilities.zone_scan ? await adapter.scanZones() : null;
    const result: TestControllerResult = {
      ok: true,
      reachable: true,
      master_enabled: status.device?.enabled ?? null,
      water_level_pct: status.water_level_pct,
      zone_count: zones ? zones.length : null,
      firmware: status.device?.firmware ?? null,
    };
    if (CLOUD_CONTROLLER_KINDS.has(entry.kind)) {
      const cloud = isCloudProbe(adapter) ? adapter : null;
      result.discovered_device = cloud ? await cloud.discoverDevice() : null;
      result.rate_limit_remaining = cloud?.rateLimitRemaining ?? null;
    }
    return result;
  }).catch((err: unknown) => {
    throw controllerFailure(entry.id, err);
  });
}

export async function scanControllerZones(
  deps: ControllerProbeDeps,
  posted: unknown,
): Promise<ScannedZoneEntry[]> {
  const entry = parseEntry(posted);
  if (SCAN_UNSUPPORTED_KINDS.has(entry.kind))
    throw unsupportedKind(entry.kind, 'list its zones (set stations by hand)');
  return probe(deps, entry, async (adapter) => {
    if (!adapter.capabilities.zone_scan) {
      throw new ControllerError('controller_unsupported', `a ${entry.kind} controller has no zone discovery`);
    }
    const zones = await adapter.scanZones();
    return zones.map((zone) => ({ station_id: zone.station, name: zone.name }));
  }).catch((err: unknown) => {
    if (err instanceof WizardError) throw err;
    const failure = asControllerError(entry.id, err);
    throw new WizardError(502, 'zone_scan_failed', failure.message, {
      cause: failure.code,
      ...failure.extra,
    });
  });
}

/** The posted entry, already restored and interpolated, checked against the entry and kind schemas. */
function parseEntry(posted: unknown): ControllerEntry {
  const parsed = controllerSchema.safeParse(posted);
  if (!parsed.success) {
    throw new WizardError(422, 'controller_invalid', 'the controller entry is not valid', {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** Builds the adapter, runs `use` within the probe deadline, and always stops it. */
async function probe<T>(
  deps: ControllerProbeDeps,
  entry: ControllerEntry,
  use: (adapter: ControllerAdapter) => Promise<T>,
): Promise<T> {
  const kind = deps.kinds.get(entry.kind);
  if (!kind) {
    throw new WizardError(
      422,
      'controller_unsupported',
      `this build has no controller kind "${entry.kind}"`,
      {
        known_kinds: [...deps.kinds.keys()],
      },
    );
  }
  const config = kind.configSchema.safeParse(entry.config);
  if (!config.success) {
    throw new WizardError(422, 'controller_invalid', `the ${entry.kind} config block is not valid`, {
      issues: config.error.issues.map((i) => ({ path: ['config', ...i.path].join('.'), message: i.message })),
    });
  }
  const adapter = kind.create({
    id: entry.id,
    config: config.data,
    logger: deps.logger.child({ module: 'wizard.controller_probe', controller: entry.id }),
    clock: deps.clock,
    fetch: deps.fetch,
    stations: [],
    ha: null,
    notify: () => undefined,
  });
  const timeoutMs = deps.timeoutMs ?? PROBE_TIMEOUT_MS;
  try {
    await adapter.start();
    return await withDeadline(
      use(adapter),
      timeoutMs,
      () =>
        new ControllerError(
          'controller_unreachable',
          `controller "${entry.id}" did not answer within ${Math.round(timeoutMs / 1000)} s`,
        ),
    );
  } finally {
    await adapter.stop().catch(() => undefined);
  }
}

function unsupportedKind(kind: string, what: string): WizardError {
  return new WizardError(422, 'controller_unsupported', `a ${kind} controller cannot ${what}`);
}

/** Spec 7 controller codes, except unsupported: wizard probes answer 422 for that. */
function controllerFailure(controllerId: string, err: unknown): WizardError {
  if (err instanceof WizardError) return err;
  const failure = asControllerError(controllerId, err);
  const status = failure.code === 'controller_unsupported' ? 422 : failure.status;
  return new WizardError(status, failure.code, failure.message, {
    ok: false,
    reachable: failure.code !== 'controller_unreachable',
    ...failure.extra,
  });
}
