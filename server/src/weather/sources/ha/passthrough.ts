import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import type { HaLink, HaState } from '../../../ha/ha-link';
import { fieldSpec, isWeatherField, WEATHER_FIELDS, type WeatherField } from '../../fields';
import type { ExtraReading, Reading, SourceContext, SourceKindDefinition, WeatherSource } from '../../source';
import { safeParseSourceConfig } from '../../source';
import { parseHaNumber, toSnapshotUnits } from './units';

/**
 * `ha_passthrough`: snapshot fields read from Home Assistant entities over the
 * shared HA link. Config `entities` maps a snapshot field to an entity id; on
 * start (and after every reconnect, to cover what changed while the link was
 * down) the mapped entities are read with get_states, then followed live with
 * state_changed. Values are converted from the entity's `unit_of_measurement`
 * into snapshot units. A state that is not a number (`unknown`,
 * `unavailable`, text) publishes a null reading: HA says there is no value,
 * so the field falls through instead of keeping a stale one, and it is never
 * a 0. A periodic get_states re-read (`refresh_s`) picks up `last_reported`,
 * which moves when a sensor repeats the same value (HA fires no
 * state_changed for that), so a steady reading does not age out.
 */

export const HA_PASSTHROUGH_KIND = 'ha_passthrough';
export const HA_NOT_CONNECTED = 'Home Assistant not connected';

const ENTITY_ID = /^[a-z0-9_]+\.[a-z0-9_]+$/;
/** How often a source without a link looks for one when `refresh_s` is 0. */
const RELINK_S = 60;

export const haPassthroughConfigSchema = lazySchema((z) =>
  z
    .object({
      entities: z
        .record(
          z.string(),
          z
            .string()
            .trim()
            .regex(ENTITY_ID, 'must be a Home Assistant entity id such as sensor.outdoor_temperature'),
        )
        .default({})
        .superRefine((entities, ctx) => {
          const keys = Object.keys(entities);
          for (const key of keys) {
            if (!isWeatherField(key)) {
              ctx.addIssue({
                code: 'custom',
                path: [key],
                message: `"${key}" is not a snapshot field (one of ${WEATHER_FIELDS.join(', ')})`,
              });
            }
          }
        }),
      /**
       * Soil probes: channel name -> a moisture entity (%). Each is published as the
       * source's soil channel `soil_moisture_pct:<channel>`, kept as history, so a zone
       * binds it as `source:<source id>:soil_moisture_pct:<channel>`.
       */
      soil_entities: z
        .record(
          z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'a channel name of letters, digits, - or _'),
          z
            .string()
            .trim()
            .regex(ENTITY_ID, 'must be a Home Assistant entity id such as sensor.bed_moisture'),
        )
        .default({}),
      /** Seconds between get_states re-reads; 0 turns them off (live events only). */
      refresh_s: z.number().int().min(0).max(86_400).default(300),
    })
    .strict()
    .superRefine((config, ctx) => {
      if (Object.keys(config.entities).length === 0 && Object.keys(config.soil_entities).length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['entities'],
          message: 'map at least one snapshot field (or soil channel) to an entity',
        });
      }
    }),
);

export type HaPassthroughConfig = z.infer<typeof haPassthroughConfigSchema>;

export function createHaPassthroughKind(getLink: () => HaLink | null): SourceKindDefinition {
  return {
    kind: HA_PASSTHROUGH_KIND,
    label: 'Home Assistant entities',
    provides: WEATHER_FIELDS,
    configSchema: haPassthroughConfigSchema,
    create: (ctx) => new HaPassthroughSource(ctx, getLink),
  };
}

class HaPassthroughSource implements WeatherSource {
  readonly kind = HA_PASSTHROUGH_KIND;
  readonly id: string;

  private readonly config: HaPassthroughConfig | null;
  private readonly configError: string | null;
  /** Entity id -> the fields it feeds (one entity may feed several). */
  private readonly fieldsByEntity = new Map<string, WeatherField[]>();
  /** Entity id -> the soil channels it feeds. */
  private readonly soilByEntity = new Map<string, string[]>();
  /** Entity id -> observation time (ms) of the last state published, so an older one never wins. */
  private readonly lastObservedMs = new Map<string, number>();
  private readonly warned = new Set<string>();
  private link: HaLink | null = null;
  private unbind: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private running = false;

  constructor(
    private readonly ctx: SourceContext,
    private readonly getLink: () => HaLink | null,
  ) {
    this.id = ctx.id;
    const parsed = safeParseSourceConfig(haPassthroughConfigSchema, ctx);
    this.config = parsed.success ? parsed.data : null;
    this.configError = parsed.success
      ? null
      : parsed.error.issues
          .map((issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`)
          .join('; ');
    for (const [field, entityId] of Object.entries(this.config?.entities ?? {})) {
      if (!isWeatherField(field)) continue;
      const fields = this.fieldsByEntity.get(entityId) ?? [];
      fields.push(field);
      this.fieldsByEntity.set(entityId, fields);
    }
    for (const [channel, entityId] of Object.entries(this.config?.soil_entities ?? {})) {
      this.soilByEntity.set(entityId, [...(this.soilByEntity.get(entityId) ?? []), channel]);
    }
  }

  private entityIds(): string[] {
    return [...new Set([...this.fieldsByEntity.keys(), ...this.soilByEntity.keys()])];
  }

  async start(): Promise<void> {
    if (!this.config) throw new Error(`invalid ha_passthrough config: ${this.configError}`);
    this.running = true;
    const tickS = this.config.refresh_s > 0 ? this.config.refresh_s : RELINK_S;
    this.timer = setInterval(() => void this.tick(), tickS * 1000);
    this.timer.unref();
    if (this.bind() && this.link?.reachable) await this.refresh();
    else this.ctx.sink.contact(false, HA_NOT_CONNECTED);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const undo of this.unbind.splice(0)) undo();
    this.link = null;
    // An in-flight get_states is not awaited (it may take up to the request timeout); its result is dropped.
  }

  /** Attaches to the shared link once one exists. */
  private bind(): boolean {
    if (this.link) return true;
    const link = this.getLink();
    if (!link) return false;
    this.link = link;
    this.unbind.push(
      link.subscribeStates(this.entityIds(), (entityId, state) => this.onState(entityId, state)),
      link.onConnectionChange((connected) => {
        if (!this.running) return;
        if (connected) void this.refresh();
        else this.ctx.sink.contact(false, HA_NOT_CONNECTED);
      }),
      link.registerSnapshotSource(this.id),
    );
    return true;
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    const hadLink = this.link !== null;
    if (!this.bind() || !this.link?.reachable) return;
    if (!hadLink || (this.config?.refresh_s ?? 0) > 0) await this.refresh();
  }

  /** Reads the mapped entities' current states; concurrent callers share one read. */
  private refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.read().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async read(): Promise<void> {
    const link = this.link;
    if (!link) return;
    let states: HaState[];
    try {
      states = await link.getStates();
    } catch (err) {
      if (this.running)
        this.ctx.sink.contact(false, `Home Assistant get_states failed: ${(err as Error).message}`);
      return;
    }
    if (!this.running) return;
    const readings: Reading[] = [];
    const extras: ExtraReading[] = [];
    const found = new Set<string>();
    for (const state of states) {
      if (!this.fieldsByEntity.has(state.entity_id) && !this.soilByEntity.has(state.entity_id)) continue;
      found.add(state.entity_id);
      readings.push(...this.toReadings(state));
      extras.push(...this.toSoil(state));
    }
    for (const entityId of this.entityIds()) {
      if (!found.has(entityId))
        this.warnOnce(`missing:${entityId}`, { entity_id: entityId }, 'entity not found in Home Assistant');
    }
    this.publish(readings, extras);
    this.ctx.sink.contact(true);
  }

  private onState(entityId: string, state: HaState | null): void {
    if (!this.running) return;
    const readings = state ? this.toReadings(state) : this.removed(entityId);
    this.publish(readings, state ? this.toSoil(state) : []);
    this.ctx.sink.contact(true);
  }

  private publish(readings: Reading[], extras: ExtraReading[]): void {
    if (readings.length === 0 && extras.length === 0) return;
    this.ctx.sink.publish({
      ...(readings.length > 0 ? { readings } : {}),
      ...(extras.length > 0 ? { extras } : {}),
    });
  }

  /** A soil entity's state as its channels' readings; nothing when HA holds no percentage (never a 0). */
  private toSoil(state: HaState): ExtraReading[] {
    const channels = this.soilByEntity.get(state.entity_id);
    if (!channels) return [];
    const observedMs = this.observedMs(state);
    const key = `soil:${state.entity_id}`;
    const last = this.lastObservedMs.get(key);
    if (last !== undefined && observedMs <= last) return [];
    this.lastObservedMs.set(key, observedMs);
    const value = parseHaNumber(state.state);
    const unit: unknown = state.attributes?.unit_of_measurement;
    if (value === null) return [];
    if (unit !== undefined && unit !== null && unit !== '%') {
      this.warnOnce(
        `soil-unit:${state.entity_id}`,
        { entity_id: state.entity_id, unit },
        'a soil entity must report %',
      );
      return [];
    }
    const name = state.attributes?.friendly_name;
    return channels.map((channel) => ({
      key: `soil_moisture_pct:${channel}`,
      value,
      observedEpoch: Math.floor(observedMs / 1000),
      label: typeof name === 'string' && name !== '' ? name : `Soil moisture ${channel}`,
    }));
  }

  /** The entity was deleted in HA: its fields have no value from now on. */
  private removed(entityId: string): Reading[] {
    const nowMs = this.ctx.clock.nowMs();
    this.lastObservedMs.set(entityId, nowMs);
    const observedEpoch = Math.floor(nowMs / 1000);
    return (this.fieldsByEntity.get(entityId) ?? []).map((field) => ({ field, value: null, observedEpoch }));
  }

  private toReadings(state: HaState): Reading[] {
    const fields = this.fieldsByEntity.get(state.entity_id);
    if (!fields) return [];
    const observedMs = this.observedMs(state);
    const last = this.lastObservedMs.get(state.entity_id);
    if (last !== undefined && observedMs <= last) return [];
    this.lastObservedMs.set(state.entity_id, observedMs);
    const observedEpoch = Math.floor(observedMs / 1000);
    return fields.map((field) => ({ field, value: this.value(field, state), observedEpoch }));
  }

  /** The state in snapshot units, or null when HA holds no number (or one in a unit we cannot convert). */
  private value(field: WeatherField, state: HaState): number | null {
    const raw = parseHaNumber(state.state);
    if (raw === null) return null;
    const unit: unknown = state.attributes?.unit_of_measurement;
    const converted = toSnapshotUnits(field, raw, typeof unit === 'string' ? unit : null);
    if (!converted.ok) {
      this.warnOnce(
        `unit:${state.entity_id}:${field}:${String(unit)}`,
        { entity_id: state.entity_id, field },
        converted.reason,
      );
      return null;
    }
    return fieldSpec(field).integer ? Math.round(converted.value) : converted.value;
  }

  /**
   * When HA last heard from the sensor: the newest of last_reported,
   * last_updated and last_changed (ISO), never later than now (an HA host
   * clock running ahead must not make a reading look fresher than it is).
   */
  private observedMs(state: HaState): number {
    const nowMs = this.ctx.clock.nowMs();
    const stamps = [state.last_reported, state.last_updated, state.last_changed]
      .map((stamp) => (typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN))
      .filter((ms) => Number.isFinite(ms));
    if (stamps.length === 0) return nowMs;
    return Math.min(Math.max(...stamps), nowMs);
  }

  private warnOnce(key: string, fields: Record<string, unknown>, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.ctx.logger.warn(fields, message);
  }
}
