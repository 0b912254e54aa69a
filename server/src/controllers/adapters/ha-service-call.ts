import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import { ControllerError, unreachable, unsupported } from '../errors';
import type {
  AdapterContext,
  ControllerAdapter,
  ControllerCapabilities,
  ControllerKindDefinition,
  ControllerStatus,
  HaServices,
  ScannedZone,
  StationState,
} from '../types';
import { compareText } from '../../core/compare';

/**
 * `ha_service_call`: zones are Home Assistant entities (a `switch`, `valve`,
 * `input_boolean` or `script`), driven with HA service calls over the shared
 * websocket link (`ctx.ha`, never imported here, so the adapter works with
 * any HaServices and HA stays optional). Why this shape:
 *
 * - HA switches and valves have no timer of their own, so the kind is not
 *   self-timed: the dispatcher owns the shutoff and calls `stopZone`. A
 *   script zone receives the seconds as a variable and may time itself, but
 *   `script.turn_off` only cancels the script; it closes nothing the script
 *   already opened, so scripts are the least safe station type.
 * - State is pushed (HA `state_changed` events), so the manager never polls:
 *   `start()` subscribes to the bound entities, seeds the map once from
 *   get_states and re-reads it when a read failed (HA not connected yet),
 *   after a call found the link down, and every few minutes (events missed
 *   while the link was reconnecting are never replayed). Each change calls
 *   `ctx.notify()`.
 * - Scripts have no valve state, and `unavailable`/`unknown` is no answer:
 *   those stations are absent from the status (running unknown), never "off".
 * - Every call is bounded by `timeout_s`. HA's refusals become controller
 *   errors carrying HA's message (which never contains the token).
 */

export const HA_SERVICE_CALL_KIND = 'ha_service_call';
export const HA_NOT_CONFIGURED =
  'Home Assistant is not configured (set SUPERVISOR_TOKEN, or HA_URL and HA_TOKEN)';

const STATION_DOMAINS = ['switch', 'valve', 'input_boolean', 'script'] as const;
type StationDomain = (typeof STATION_DOMAINS)[number];

/** HA's entity id rule (no leading, trailing or doubled underscore), limited to the drivable domains. */
const STATION_PATTERN = new RegExp(`^(${STATION_DOMAINS.join('|')})\\.(?!_)(?!.*__)[a-z0-9_]+(?<!_)$`);
const STATION_EXPECTATION = 'an entity id such as "switch.front_lawn" or "valve.front_lawn"';

/** Link failures that say nothing about the entity: the held states may be stale. */
const LINK_DOWN_CODES = new Set(['not_connected', 'connection_lost']);
const AUTH_CODES = new Set(['unauthorized', 'invalid_auth']);

export function isHaStation(station: string): boolean {
  return STATION_PATTERN.test(station.trim());
}

// Built on first use (core/zod-lazy.ts): a boot from the validated-config cache loads no zod.
const configSchema = lazySchema((z) =>
  z.looseObject({
    /** Bound on one Home Assistant call, seconds. */
    timeout_s: z.number().int().min(1).max(60).default(10),
    /** Run zones of this controller concurrently (default: one at a time). */
    concurrent_zones: z.boolean().default(false),
    /** Zone slug -> entity id, for zones without their own `controller_station`. */
    zone_map: z
      .record(z.string(), z.string().trim().refine(isHaStation, `expected ${STATION_EXPECTATION}`))
      .optional(),
    /** The script variable that receives the run's seconds (scripts also get `station`). */
    script_seconds_variable: z
      .string()
      .trim()
      .regex(/^[a-z_][a-z0-9_]*$/, 'expected a script variable name such as "seconds"')
      .refine((name) => name !== 'station', '"station" is already passed to scripts')
      .default('seconds'),
  }),
);

export type HaServiceCallConfig = z.output<typeof configSchema>;

/** Timings tests shorten; production uses the defaults. */
export interface HaServiceCallTimings {
  /** Wait before re-reading states after a failed read. Default 15 s. */
  retryMs?: number;
  /** Period of the full re-read that catches events missed during a reconnect. Default 5 min; 0 = off. */
  refreshMs?: number;
}

interface HeldState {
  running: boolean;
  observedEpoch: number;
}

interface ServiceAction {
  domain: string;
  service: string;
}

function domainOf(station: string): StationDomain {
  return station.slice(0, station.indexOf('.')) as StationDomain;
}

/** Switches, valves and input_booleans report whether water flows; scripts do not. */
function hasValveState(station: string): boolean {
  return domainOf(station) !== 'script';
}

function runAction(domain: StationDomain): ServiceAction {
  if (domain === 'valve') return { domain, service: 'open_valve' };
  return { domain, service: 'turn_on' };
}

function stopAction(domain: StationDomain): ServiceAction {
  if (domain === 'valve') return { domain, service: 'close_valve' };
  return { domain, service: 'turn_off' };
}

/** The running flag an HA state string means for the station's domain; null = unknown. */
export function runningFromHaState(station: string, state: string): boolean | null {
  switch (domainOf(station)) {
    case 'valve':
      if (state === 'open' || state === 'opening') return true;
      if (state === 'closed' || state === 'closing') return false;
      return null;
    case 'switch':
    case 'input_boolean':
      if (state === 'on') return true;
      if (state === 'off') return false;
      return null;
    default:
      return null;
  }
}

export class HaServiceCallController implements ControllerAdapter {
  readonly kind = HA_SERVICE_CALL_KIND;
  readonly id: string;
  readonly capabilities: ControllerCapabilities;
  readonly confirmWithinS: number | null;
  readonly pollIntervalMs = null;

  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly refreshMs: number;
  /** Bound entities whose state means "water flows" (no scripts, no unparseable stations). */
  private readonly watched: readonly string[];
  private readonly held = new Map<string, HeldState>();
  /** Per entity: the event sequence number of its last pushed state (a read never overwrites a newer event). */
  private readonly eventSeqOf = new Map<string, number>();
  private eventSeq = 0;
  private seeded = false;
  private seededEpoch: number | null = null;
  private running = false;
  private unsubscribe: (() => void) | null = null;
  private resyncTimer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly ctx: AdapterContext<HaServiceCallConfig>,
    timings: HaServiceCallTimings = {},
  ) {
    this.id = ctx.id;
    this.timeoutMs = ctx.config.timeout_s * 1000;
    this.retryMs = timings.retryMs ?? 15_000;
    this.refreshMs = timings.refreshMs ?? 300_000;
    const stations = new Set(ctx.stations.map((binding) => binding.station.trim()));
    this.watched = [...stations].filter((station) => isHaStation(station) && hasValveState(station));
    const readback = this.watched.length > 0;
    this.confirmWithinS = readback ? 5 : null;
    this.capabilities = {
      per_zone_stop: true,
      state_readback: readback,
      zone_scan: true,
      water_level: false,
      flow: false,
      concurrent_zones: ctx.config.concurrent_zones,
      self_timed: false,
      // A script receives the seconds and can time itself inside Home Assistant; a switch or valve cannot.
      device_limit: stations.size > 0 && [...stations].every((station) => domainOf(station) === 'script'),
    };
  }

  // --- lifecycle ---------------------------------------------------------------

  /** Subscribes and reads the current states; never throws (a failed read is retried). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const ha = this.ctx.ha;
    if (!ha) {
      this.ctx.logger.warn({ controller: this.id }, HA_NOT_CONFIGURED);
      return;
    }
    if (this.watched.length === 0) return;
    const offStates = ha.subscribeStates(this.watched, (entityId, state) => this.onPushed(entityId, state));
    // A dropped link with no call in flight must still turn the states unknown (readback honesty).
    const offLink = ha.onConnectionChange?.((connected) =>
      connected ? this.scheduleResync(1) : this.linkLost(),
    );
    this.unsubscribe = () => {
      offStates();
      offLink?.();
    };
    await this.resync().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.clearResyncTimer();
    this.held.clear();
    this.seeded = false;
  }

  // --- commands ----------------------------------------------------------------

  async runZone(station: string, seconds: number): Promise<void> {
    const entityId = this.entityFor(station);
    const domain = domainOf(entityId);
    const data =
      domain === 'script'
        ? { variables: { [this.ctx.config.script_seconds_variable]: seconds, station: entityId } }
        : undefined;
    await this.call(runAction(domain), entityId, data);
  }

  async stopZone(station: string): Promise<'zone'> {
    const entityId = this.entityFor(station);
    await this.call(stopAction(domainOf(entityId)), entityId);
    return 'zone';
  }

  /** Stops every bound station at once; each is tried, and the last failure (in station order) is thrown. */
  async stopAll(): Promise<void> {
    this.requireHa();
    const stations = [...new Set(this.ctx.stations.map((binding) => binding.station.trim()))].filter(
      isHaStation,
    );
    const outcomes = await Promise.allSettled(stations.map((station) => this.stopZone(station)));
    const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
    const last = failures.at(-1);
    if (last) throw last.reason;
  }

  /** The pushed states of the bound switches and valves; scripts and unknown states are absent. */
  async readStatus(): Promise<ControllerStatus> {
    this.requireHa();
    if (!this.capabilities.state_readback) throw unsupported(this.id, 'report state (only script stations)');
    if (!this.seeded) await this.resync();
    const stations: Record<string, StationState> = {};
    let observed = this.seededEpoch ?? epochSeconds(this.ctx.clock);
    for (const [station, held] of this.held) {
      stations[station] = { running: held.running, remaining_s: null };
      observed = Math.max(observed, held.observedEpoch);
    }
    return {
      observed_epoch: observed,
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  /** Every switch and valve HA knows (never a gas valve): water valves first, then valves, then switches. */
  async scanZones(): Promise<ScannedZone[]> {
    const ha = this.requireHa();
    const states = await this.bounded(ha.getStates(), 'get_states');
    return states
      .filter((state) => isScannable(state.entity_id, state.attributes))
      .map((state) => ({
        station: state.entity_id,
        name: friendlyName(state.entity_id, state.attributes),
        rank: scanRank(state.entity_id, state.attributes),
      }))
      .sort((a, b) => a.rank - b.rank || compareText(a.name, b.name))
      .map(({ station, name }) => ({ station, name }));
  }

  // --- calls ---------------------------------------------------------------------

  private requireHa(): HaServices {
    if (!this.ctx.ha) throw new ControllerError('controller_unreachable', HA_NOT_CONFIGURED);
    return this.ctx.ha;
  }

  private entityFor(station: string): string {
    this.requireHa();
    const entityId = station.trim();
    if (!isHaStation(entityId)) {
      throw new ControllerError(
        'controller_unsupported',
        `controller "${this.id}" cannot drive "${station}": it expects ${STATION_EXPECTATION}`,
      );
    }
    return entityId;
  }

  private async call(action: ServiceAction, entityId: string, data?: Record<string, unknown>): Promise<void> {
    const ha = this.requireHa();
    const label = `${action.domain}.${action.service} ${entityId}`;
    await this.bounded(ha.callService(action.domain, action.service, data, { entity_id: entityId }), label);
  }

  /** Races the call with `timeout_s`; every failure leaves as a ControllerError. */
  private async bounded<T>(promise: Promise<T>, label: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new HaCallTimeout()), this.timeoutMs);
      timer.unref();
    });
    // A call that answers after the timeout must not become an unhandled rejection.
    promise.catch(() => undefined);
    try {
      return await Promise.race([promise, timeout]);
    } catch (err) {
      throw this.toControllerError(err, label);
    } finally {
      clearTimeout(timer);
    }
  }

  private toControllerError(err: unknown, label: string): ControllerError {
    if (err instanceof ControllerError) return err;
    if (err instanceof HaCallTimeout) {
      return unreachable(this.id, `Home Assistant did not answer ${label} within ${this.timeoutMs / 1000} s`);
    }
    const code = errorField(err, 'code');
    const message = errorField(err, 'message') ?? String(err);
    if (code !== null && LINK_DOWN_CODES.has(code)) this.linkLost();
    if (code !== null && AUTH_CODES.has(code)) {
      return new ControllerError(
        'controller_auth_failed',
        `controller "${this.id}": Home Assistant refused ${label} (${code}): ${message}`,
        {
          hint: "check the Home Assistant token (HA_TOKEN or the add-on's SUPERVISOR_TOKEN) and its user's rights",
        },
      );
    }
    return unreachable(this.id, `${label} failed: ${message}`);
  }

  // --- pushed state --------------------------------------------------------------

  private onPushed(entityId: string, state: { state: string } | null): void {
    if (!this.running) return;
    this.eventSeq += 1;
    this.eventSeqOf.set(entityId, this.eventSeq);
    if (this.apply(entityId, state?.state ?? null)) this.ctx.notify();
  }

  /** Updates one station; true when its running state (or whether it is known) changed. */
  private apply(entityId: string, haState: string | null): boolean {
    const before = this.held.get(entityId);
    const running = haState === null ? null : runningFromHaState(entityId, haState);
    if (running === null) {
      this.held.delete(entityId);
      return before !== undefined;
    }
    this.held.set(entityId, { running, observedEpoch: epochSeconds(this.ctx.clock) });
    return before?.running !== running;
  }

  /** One get_states read at a time; a failure schedules a retry and is rethrown. */
  private resync(): Promise<void> {
    if (!this.reading) {
      this.reading = this.readStates().finally(() => {
        this.reading = null;
      });
    }
    return this.reading;
  }

  private async readStates(): Promise<void> {
    const ha = this.requireHa();
    const seqAtStart = this.eventSeq;
    this.clearResyncTimer();
    try {
      const states = await this.bounded(ha.getStates(), 'get_states');
      if (!this.running) return;
      this.seed(states, seqAtStart);
      this.scheduleResync(this.refreshMs);
    } catch (err) {
      this.scheduleResync(this.retryMs);
      this.ctx.logger.debug(
        { controller: this.id, reason: (err as Error).message },
        'Home Assistant states not read',
      );
      throw err;
    }
  }

  private seed(states: { entity_id: string; state: string }[], seqAtStart: number): void {
    const byId = new Map(states.map((state) => [state.entity_id, state.state]));
    let changed = false;
    for (const entityId of this.watched) {
      if ((this.eventSeqOf.get(entityId) ?? 0) > seqAtStart) continue;
      if (this.apply(entityId, byId.get(entityId) ?? null)) changed = true;
    }
    this.seeded = true;
    this.seededEpoch = epochSeconds(this.ctx.clock);
    if (changed) this.ctx.notify();
  }

  /** The link is down: what we hold may be stale, so every station is unknown until the next read. */
  private linkLost(): void {
    if (!this.running || !this.seeded) return;
    this.seeded = false;
    const hadStates = this.held.size > 0;
    this.held.clear();
    this.scheduleResync(this.retryMs);
    if (hadStates) this.ctx.notify();
  }

  private scheduleResync(delayMs: number): void {
    this.clearResyncTimer();
    if (!this.running || delayMs <= 0 || this.watched.length === 0) return;
    this.resyncTimer = setTimeout(() => void this.resync().catch(() => undefined), delayMs);
    this.resyncTimer.unref();
  }

  private clearResyncTimer(): void {
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.resyncTimer = null;
  }
}

class HaCallTimeout extends Error {}

function errorField(err: unknown, key: 'code' | 'message'): string | null {
  const value = (err as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : null;
}

function isScannable(entityId: string, attributes: Record<string, unknown>): boolean {
  if (entityId.startsWith('switch.')) return true;
  return entityId.startsWith('valve.') && attributes.device_class !== 'gas';
}

/** 0 water valve, 1 other valve, 2 switch. */
function scanRank(entityId: string, attributes: Record<string, unknown>): number {
  if (!entityId.startsWith('valve.')) return 2;
  return attributes.device_class === 'water' ? 0 : 1;
}

function friendlyName(entityId: string, attributes: Record<string, unknown>): string {
  const name = attributes.friendly_name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : entityId;
}

export const haServiceCallKind: ControllerKindDefinition<HaServiceCallConfig> = {
  kind: HA_SERVICE_CALL_KIND,
  label: 'Home Assistant switch, valve or script',
  configSchema,
  stationExpectation: STATION_EXPECTATION,
  parseStation: isHaStation,
  create: (ctx) => new HaServiceCallController(ctx),
};
