import type { AppliedConfig } from '../config/config-types';
import type { EventBus, HaAdoptionEntry } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import { parseControlAction, type ControlAction } from '../irrigation/controls/actions';
import { activeOverrideTomorrow } from '../irrigation/controls/resolve';
import { THRESHOLD_KEYS, type ControlsState, type ThresholdKey } from '../irrigation/controls/types';
import { CONTROL_KEYS } from '../store/controls';
import type { JsonValue } from '../store/json';
import { waitAtMost } from './ha-facts';
import type { HaLink, HaState } from './ha-link';

/**
 * Adoption of the retired Home Assistant helpers (spec 2.5 `ha_adoption`).
 * Before the service held its own controls, installs kept the pause, the
 * overrides and the skip thresholds in HA helpers (input_boolean,
 * input_datetime, input_select, input_number). On the first HA connection
 * with a config present, their states are read once and written into the
 * service's controls through the same validation as POST /irrigation/action;
 * one record per helper says what happened. The records are stored under
 * HA_ADOPTION_KEY in the controls table, so a restart reports them and never
 * adopts again. docs/ha.md lists the helpers and the rules.
 *
 * Outcomes, decided in this order:
 * - `not_found`: HA has no such entity.
 * - `unreadable`: the state is unavailable/unknown or not a valid value
 *   (an option outside the set, a number outside the server's range);
 *   `observed_value` is the raw state.
 * - `kept_local`: the service already holds a non-default value for the
 *   target (pause on, a pause running, a tomorrow override for a date not
 *   passed, an override other than auto, a threshold control other than the
 *   config's skip_rules value); it is kept, `adopted_value` is null and
 *   `observed_value` is HA's value.
 * - `adopted`: HA's value is now the service's (written unless it already
 *   was); `previous_value` is what the service had stored, null when unset.
 *
 * Values are text: `on`/`off`, epoch seconds, the mode, the number.
 */

/** The controls-table key of the stored records. */
export const HA_ADOPTION_KEY = 'ha_adoption';
const RECORDS_VERSION = 1;
/** How long start() waits for a first adoption (before the scheduler starts); the rest continues in the background. */
export const START_WAIT_MS = 10_000;

export type RetiredHelperKind =
  'pause' | 'pause_until' | 'override_tomorrow' | 'global_override' | 'zone_override' | 'threshold';

export interface RetiredHelper {
  /** `<slug>` stands for each configured zone's slug. */
  entity: string;
  /** The controls-table key written (CONTROL_KEYS). */
  target: string;
  kind: RetiredHelperKind;
  threshold?: ThresholdKey;
}

/** Every helper looked for, in adoption order (the one list; docs/ha.md mirrors it). */
export const RETIRED_HELPERS: readonly RetiredHelper[] = [
  {
    entity: 'input_boolean.irrigation_pause',
    target: CONTROL_KEYS.toggle('irrigation_pause'),
    kind: 'pause',
  },
  {
    entity: 'input_datetime.irrigation_pause_until',
    target: CONTROL_KEYS.pauseUntilEpoch,
    kind: 'pause_until',
  },
  {
    entity: 'input_select.irrigation_override_tomorrow',
    target: CONTROL_KEYS.overrideTomorrow,
    kind: 'override_tomorrow',
  },
  {
    entity: 'input_select.irrigation_global_override',
    target: CONTROL_KEYS.globalOverride,
    kind: 'global_override',
  },
  {
    entity: 'input_select.irrigation_zone_<slug>_override',
    target: CONTROL_KEYS.zoneOverride('<slug>'),
    kind: 'zone_override',
  },
  ...THRESHOLD_KEYS.map((key): RetiredHelper => ({
    entity: `input_number.irrigation_${key}`,
    target: CONTROL_KEYS.threshold(key),
    kind: 'threshold',
    threshold: key,
  })),
];

/** The helpers for these zones: the zone template expanded once per slug (sorted). */
export function helpersFor(zoneSlugs: readonly string[]): (RetiredHelper & { zone?: string })[] {
  return RETIRED_HELPERS.flatMap((helper) =>
    helper.kind === 'zone_override'
      ? [...zoneSlugs].sort().map((zone) => ({
          ...helper,
          entity: helper.entity.replace('<slug>', zone),
          target: helper.target.replace('<slug>', zone),
          zone,
        }))
      : [helper],
  );
}

// ---------------------------------------------------------------------------
// The pure part: states and the local controls in, records and writes out.

export interface AdoptionInput {
  states: ReadonlyMap<string, HaState>;
  zoneSlugs: readonly string[];
  controls: ControlsState;
  /** The stored control rows, to tell a stored default from an unset control ({} when unknown). */
  rows: Readonly<Record<string, JsonValue>>;
  /** engine.skip_rules: a threshold control equal to its rule is not a local change. */
  skipRules: Partial<Record<ThresholdKey, number>>;
  /** The deployment's time zone (the tomorrow override's dates). */
  timezone: string;
  /** HA's time zone, for an input_datetime state without a timestamp attribute. */
  haTimezone: string;
  now: number;
}

export interface AdoptionPlan {
  entries: HaAdoptionEntry[];
  /** The writes, in order, each with the index of its entry. */
  writes: { entry: number; action: ControlAction }[];
}

const UNREADABLE_STATES = new Set(['unavailable', 'unknown', '']);

export function planAdoption(input: AdoptionInput): AdoptionPlan {
  const entries: HaAdoptionEntry[] = [];
  const writes: AdoptionPlan['writes'] = [];
  const context = { mappedZones: input.zoneSlugs, nowEpoch: input.now };
  for (const helper of helpersFor(input.zoneSlugs)) {
    const local = localValue(helper, input);
    const base = {
      entity: helper.entity,
      target: helper.target,
      previous_value: local.stored,
      epoch: input.now,
    };
    const state = input.states.get(helper.entity);
    if (!state) {
      entries.push({ ...base, outcome: 'not_found', adopted_value: null });
      continue;
    }
    const raw = typeof state.state === 'string' ? state.state : String(state.state);
    const read = UNREADABLE_STATES.has(raw.trim().toLowerCase()) ? null : readHelper(helper, state, input);
    const parsed = read ? parseControlAction(read.body, context) : null;
    if (!read || !parsed?.ok) {
      entries.push({ ...base, outcome: 'unreadable', adopted_value: null, observed_value: raw });
      continue;
    }
    if (local.nonDefault) {
      entries.push({ ...base, outcome: 'kept_local', adopted_value: null, observed_value: read.value });
      continue;
    }
    entries.push({ ...base, outcome: 'adopted', adopted_value: read.value });
    // Already the service's value: nothing to write (and an `off` toggle would also clear a timed pause).
    if (read.value !== local.effective) writes.push({ entry: entries.length - 1, action: parsed.action });
  }
  return { entries, writes };
}

interface LocalValue {
  /** What the service stores for the target, as text; null when unset. */
  stored: string | null;
  /** What the service acts on now, as text (the neutral default when unset). */
  effective: string;
  nonDefault: boolean;
}

function localValue(helper: RetiredHelper & { zone?: string }, input: AdoptionInput): LocalValue {
  const { controls, rows, now } = input;
  const isStored = Object.hasOwn(rows, helper.target);
  switch (helper.kind) {
    case 'pause': {
      const on = controls.toggles.irrigation_pause === true;
      const text = on ? 'on' : 'off';
      return { stored: isStored ? text : null, effective: text, nonDefault: on };
    }
    case 'pause_until': {
      const until = controls.pause_until_epoch;
      return {
        stored: isStored ? String(until) : null,
        effective: until > now ? String(until) : '0',
        nonDefault: until > now,
      };
    }
    case 'override_tomorrow': {
      const active = activeOverrideTomorrow(controls, now, input.timezone);
      return {
        stored: isStored ? controls.override_tomorrow : null,
        effective: active,
        nonDefault: active !== 'none',
      };
    }
    case 'global_override': {
      const mode = controls.global_override;
      return { stored: isStored ? mode : null, effective: mode, nonDefault: mode !== 'auto' };
    }
    case 'zone_override': {
      const mode = controls.zone_overrides[helper.zone ?? ''] ?? 'auto';
      return { stored: isStored ? mode : null, effective: mode, nonDefault: mode !== 'auto' };
    }
    case 'threshold': {
      const key = helper.threshold as ThresholdKey;
      const value = controls.thresholds[key];
      const rule = input.skipRules[key];
      return {
        stored: value === undefined ? null : String(value),
        effective: String(value ?? rule ?? ''),
        nonDefault: value !== undefined && value !== rule,
      };
    }
  }
}

/** HA's value as an action body and its text; null when the state is not one. */
function readHelper(
  helper: RetiredHelper & { zone?: string },
  state: HaState,
  input: AdoptionInput,
): { value: string; body: Record<string, unknown> } | null {
  const text = String(state.state).trim().toLowerCase();
  switch (helper.kind) {
    case 'pause':
      if (text !== 'on' && text !== 'off') return null;
      return { value: text, body: { kind: 'toggle', key: 'irrigation_pause', on: text === 'on' } };
    case 'pause_until': {
      const epoch = pauseEpoch(state, input.haTimezone);
      if (epoch === null) return null;
      // A pause that has already ended is no pause.
      const value = epoch > input.now ? epoch : 0;
      return { value: String(value), body: { kind: 'set_pause_until', epoch: value } };
    }
    case 'override_tomorrow':
      return { value: text, body: { kind: 'set_override_tomorrow', mode: text } };
    case 'global_override':
      return { value: text, body: { kind: 'set_global_override', mode: text } };
    case 'zone_override':
      return { value: text, body: { kind: 'set_zone_override', zone: helper.zone, mode: text } };
    case 'threshold': {
      if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text)) return null;
      const value = Number(text);
      return { value: String(value), body: { kind: 'set_threshold', key: helper.threshold, value } };
    }
  }
}

/**
 * An input_datetime's instant: its `timestamp` attribute (epoch seconds,
 * preferred), else the state `YYYY-MM-DD HH:MM[:SS]` read in HA's time zone.
 * A time-only helper (has_date false) has no instant.
 */
export function pauseEpoch(state: HaState, haTimezone: string): number | null {
  const attributes = (state.attributes ?? {}) as Record<string, unknown>;
  if (attributes.has_date === false) return null;
  const timestamp = attributes.timestamp;
  if (typeof timestamp === 'number' && Number.isFinite(timestamp) && timestamp >= 0) {
    return Math.floor(timestamp);
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(String(state.state).trim());
  if (!match) return null;
  const field = (i: number) => Number(match[i] ?? 0);
  const at = LocalTime.fromFields(
    { year: field(1), month: field(2), day: field(3), hour: field(4), minute: field(5), second: field(6) },
    timeZone(haTimezone),
  );
  return at.isValid && at.seconds >= 0 ? Math.floor(at.seconds) : null;
}

// ---------------------------------------------------------------------------
// The module.

/** What adoption reads and writes of the controls (the irrigation service's ControlsStore). */
export interface AdoptionControls {
  state(): ControlsState;
  /** The stored rows; {} when they cannot be read (no database). */
  rows(): Record<string, JsonValue>;
  /** Persists one validated action (and recomputes). */
  apply(action: ControlAction): void;
}

export interface HaAdoptionDeps {
  link: Pick<HaLink, 'reachable' | 'getStates' | 'onConnectionChange'>;
  controls: AdoptionControls;
  /** Where the records live: the controls repository, or memory without a database. */
  records: { get(key: string): JsonValue | undefined; set(key: string, value: JsonValue): void };
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Null before a config exists: adoption waits for one (zone helpers need the slugs). */
  config: () => AppliedConfig | null;
  /** The deployment's time zone. */
  timezone: () => string;
  /** HA's own time zone (get_config), when read. */
  haTimezone: () => string | null;
}

export class HaAdoption {
  readonly name = 'ha.adoption';
  private readonly log: Logger;
  private entries: HaAdoptionEntry[] | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: HaAdoptionDeps) {
    this.log = deps.logger.child({ module: 'ha.adoption' });
  }

  /** Loads stored records; otherwise adopts now when HA is up and a config exists (waiting at most START_WAIT_MS). */
  async start(): Promise<void> {
    this.started = true;
    this.entries = storedEntries(this.deps.records.get(HA_ADOPTION_KEY));
    if (this.entries) {
      this.deps.bus.emit('ha.adoption', { entries: this.entries });
      return;
    }
    this.unsubscribers.push(
      this.deps.link.onConnectionChange((connected) => {
        if (connected) void this.maybeAdopt();
      }),
      this.deps.bus.on('config.changed', () => void this.maybeAdopt()),
    );
    await waitAtMost(this.maybeAdopt(), START_WAIT_MS);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const off of this.unsubscribers.splice(0)) off();
    await this.running;
  }

  /** The snapshot's `ha_adoption`: [] until adoption ran. */
  records(): HaAdoptionEntry[] {
    return this.entries ?? [];
  }

  /** Adopts once: no-op when done, running, HA is down or no config exists yet. */
  maybeAdopt(): Promise<void> {
    if (this.entries !== null || !this.started) return Promise.resolve();
    if (this.running) return this.running;
    if (!this.deps.link.reachable || !this.deps.config()) return Promise.resolve();
    this.running = this.adopt().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async adopt(): Promise<void> {
    let states: HaState[];
    try {
      states = await this.deps.link.getStates();
    } catch (err) {
      this.log.warn(
        { reason: (err as Error).message },
        'could not read Home Assistant states; adoption waits',
      );
      return;
    }
    const applied = this.deps.config();
    if (!this.started || this.entries !== null || !applied) return;
    const timezone = this.deps.timezone();
    const plan = planAdoption({
      states: new Map(states.map((s) => [s.entity_id, s])),
      zoneSlugs: Object.keys(applied.config.zones),
      controls: this.deps.controls.state(),
      rows: this.deps.controls.rows(),
      skipRules: applied.config.engine.skip_rules,
      timezone,
      haTimezone: this.deps.haTimezone() ?? timezone,
      now: epochSeconds(this.deps.clock),
    });
    for (const write of plan.writes) {
      try {
        this.deps.controls.apply(write.action);
      } catch (err) {
        const entry = plan.entries[write.entry] as HaAdoptionEntry;
        this.log.error({ err, entity: entry.entity }, 'could not write an adopted helper value');
        plan.entries[write.entry] = {
          ...entry,
          outcome: 'unreadable',
          adopted_value: null,
          observed_value: entry.adopted_value ?? '',
        };
      }
    }
    this.entries = plan.entries;
    try {
      this.deps.records.set(HA_ADOPTION_KEY, {
        version: RECORDS_VERSION,
        entries: plan.entries as unknown as JsonValue,
      });
    } catch (err) {
      this.log.error({ err }, 'could not store the adoption records; adoption runs again next start');
    }
    const counts: Record<string, number> = {};
    for (const entry of plan.entries) counts[entry.outcome] = (counts[entry.outcome] ?? 0) + 1;
    this.log.info(counts, 'Home Assistant helpers adopted');
    this.deps.bus.emit('ha.adoption', { entries: plan.entries });
  }
}

const OUTCOMES = new Set(['adopted', 'not_found', 'unreadable', 'kept_local']);

/** The stored records, or null when none (or unreadable: adoption runs again). */
export function storedEntries(value: JsonValue | undefined): HaAdoptionEntry[] | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = value.entries;
  if (!Array.isArray(entries)) return null;
  const out: HaAdoptionEntry[] = [];
  for (const e of entries) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return null;
    const { entity, outcome, target, adopted_value, previous_value, epoch, observed_value } = e;
    if (typeof entity !== 'string' || typeof target !== 'string' || typeof epoch !== 'number') return null;
    if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) return null;
    if (!textOrNull(adopted_value) || !textOrNull(previous_value)) return null;
    out.push({
      entity,
      outcome: outcome as HaAdoptionEntry['outcome'],
      target,
      adopted_value: adopted_value as string | null,
      previous_value: previous_value as string | null,
      epoch,
      ...(typeof observed_value === 'string' ? { observed_value } : {}),
    });
  }
  return out;
}

function textOrNull(value: unknown): boolean {
  return value === null || typeof value === 'string';
}
