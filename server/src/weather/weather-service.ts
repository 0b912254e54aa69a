import type { AppliedConfig } from '../config/config-types';
import { channelsSeen, mergeDevice } from './device-merge';
import { copyPlain } from '../config/json-walk';
import { sourceKind } from '../config/kinds';
import type { SourceEntry } from '../config/schema';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { SourceHealth } from '../core/health';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { Mutex } from '../core/mutex';
import { resolveTimezone } from '../location/timezone';
import type { Store } from '../store/store';
import { fieldSpec, isWeatherField, type WeatherField } from './fields';
import { isFarFuture, mergeFields, type Selection } from './merge';
import { buildWeatherSnapshot, type WeatherSnapshot } from './snapshot';
import type {
  DeviceChannel,
  DeviceRecord,
  ExtraReading,
  Reading,
  SourceBatch,
  SourceKindDefinition,
  SourceLocation,
  WeatherSource,
} from './source';
import { HARD_OFFLINE_S, sourceStatus } from './status';
import { LightningTracker } from './trackers/lightning';
import { compareText } from '../core/compare';

/**
 * The weather domain's long-lived module: builds one source per enabled
 * `[[sources]]` entry, merges their readings per field, serves the snapshot,
 * announces changes on the bus (coalesced), keeps history in the store, and
 * reconfigures on every config change without losing the state of sources
 * whose entry did not change.
 */

/** `current_weather` sample (spec 2.3). */
export interface CurrentWeatherSample {
  value: number;
  source_id: string;
  observed_epoch: number;
  max_age_s: number;
  measured: boolean;
  selection_reason: string;
}

export interface WeatherServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store | null;
  kinds: ReadonlyMap<string, SourceKindDefinition>;
  /** Kinds whose values are modelled, not measured (for `current_weather[].measured`). */
  modelledKinds: ReadonlySet<string>;
  /** DEMO=1: a synthetic replay source runs even when the config names none. */
  demo: boolean;
  fetch?: typeof fetch;
  /** Wraps the fetch one source kind is given (main.ts: latency and error metrics). */
  fetchFor?: (kind: string, inner: typeof fetch) => typeof fetch;
}

interface SourceRuntime {
  entry: SourceEntry;
  fingerprint: string;
  definition: SourceKindDefinition | null;
  source: WeatherSource | null;
  startedEpoch: number;
  readings: Map<WeatherField, Reading>;
  extras: Map<string, ExtraReading>;
  lightning: LightningTracker;
  lastContactOkEpoch: number | null;
  lastObservationEpoch: number | null;
  note: string | null;
  devices: Map<string, DeviceRecord>;
  stationSerial: string | null;
  hubSerial: string | null;
  /** Last epoch each reading key was written to history (one row per minute at most). */
  storedAt: Map<string, number>;
}

/** At most this many snapshot events per second reach the bus. */
const EMIT_INTERVAL_MS = 250;
const TICK_MS = 15_000;
const PRESSURE_SAMPLE_S = 900;
const PRESSURE_SAMPLES = 12;
const HISTORY_EVERY_S = 60;
const MERGED_SOURCE_ID = '_merged';
const DEMO_SOURCE: SourceEntry = {
  id: 'demo',
  priority: 100,
  enabled: true,
  kind: 'demo_replay',
  config: {},
};

export class WeatherService implements Module {
  readonly name = 'weather';
  private readonly runtimes = new Map<string, SourceRuntime>();
  private readonly reconfigureLock = new Mutex();
  private readonly log: Logger;
  private location: SourceLocation | null = null;
  private unsubscribe: (() => void) | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private emitTimer: NodeJS.Timeout | null = null;
  private lastEmitMs = 0;
  private lastEmittedJson = '';
  private dirty = true;
  private builtAtEpoch = -1;
  private cached: { snapshot: WeatherSnapshot; selections: Map<WeatherField, Selection> } | null = null;
  private pressureTrend: number[] = [];
  private lastPressureSampleEpoch = 0;
  private lastHistoryEpoch = 0;
  /** The status last announced per source (`source.status`), so only changes are announced. */
  private readonly announcedStatus = new Map<string, string>();

  constructor(private readonly deps: WeatherServiceDeps) {
    this.log = deps.logger.child({ module: 'weather' });
  }

  async start(): Promise<void> {
    const offConfig = this.deps.bus.on('config.changed', () => void this.reconfigure());
    // Home Assistant's site facts may fill the deployment's time zone or elevation (location/site.ts).
    const offFacts = this.deps.bus.on('ha.facts', () => void this.reconfigure());
    this.unsubscribe = () => {
      offConfig();
      offFacts();
    };
    await this.reconfigure();
    this.tickTimer = setInterval(() => this.tick(), TICK_MS);
    this.tickTimer.unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.tickTimer) clearInterval(this.tickTimer);
    if (this.emitTimer) clearTimeout(this.emitTimer);
    await Promise.all([...this.runtimes.values()].map((r) => this.stopRuntime(r)));
    this.runtimes.clear();
  }

  /** The merged snapshot now (rebuilt when a reading arrived or time moved on). */
  snapshot(): WeatherSnapshot {
    return this.build().snapshot;
  }

  /** `current_weather` for the irrigation snapshot: null before any live value exists. */
  currentWeather(): Record<string, CurrentWeatherSample> | null {
    const { selections } = this.build();
    if (selections.size === 0) return null;
    const out: Record<string, CurrentWeatherSample> = {};
    for (const [field, s] of selections) {
      const kind = this.runtimes.get(s.sourceId)?.entry.kind ?? '';
      out[field] = {
        value: s.value,
        source_id: s.sourceId,
        observed_epoch: s.observedEpoch,
        max_age_s: s.maxAgeS,
        measured: !this.deps.modelledKinds.has(kind),
        selection_reason: s.reason,
      };
    }
    return out;
  }

  sourceHealth(): SourceHealth[] {
    const now = epochSeconds(this.deps.clock);
    const { selections } = this.build();
    const activities = [...this.runtimes.values()].map((r) => ({
      id: r.entry.id,
      kind: r.entry.kind,
      enabled: r.entry.enabled && r.source !== null,
      priority: r.entry.priority,
      lastContactOkEpoch: r.lastContactOkEpoch,
      lastObservationEpoch: r.lastObservationEpoch,
      note: r.source === null && r.entry.enabled ? (r.note ?? 'not supported by this build') : r.note,
      readings: r.readings,
      minLiveS: r.definition?.minLiveS,
    }));
    return activities.map((a) => sourceStatus(a, activities, selections, now));
  }

  devices(): DeviceRecord[] {
    return [...this.runtimes.values()]
      .flatMap((r) => [...r.devices.values()])
      .sort((a, b) => compareText(a.id, b.id));
  }

  /** The live extra readings (soil channels, ...) of every source, keyed `source:<id>:<key>`. */
  extras(): {
    key: string;
    source_id: string;
    value: number;
    observed_epoch: number;
    label: string | null;
  }[] {
    return [...this.runtimes.values()].flatMap((r) =>
      [...r.extras.values()].map((x) => ({
        key: `source:${r.entry.id}:${x.key}`,
        source_id: r.entry.id,
        value: x.value,
        observed_epoch: x.observedEpoch,
        label: x.label ?? null,
      })),
    );
  }

  /** What each running source of these kinds has reported: its latest reading per field and its extras. */
  channelsOf(kinds: readonly string[]): {
    source_id: string;
    kind: string;
    channels: { key: string; value: number | null; observed_epoch: number; label: string | null }[];
  }[] {
    return [...this.runtimes.values()]
      .filter((r) => kinds.includes(r.entry.kind) && r.source !== null)
      .map((r) => ({
        source_id: r.entry.id,
        kind: r.entry.kind,
        channels: [
          ...[...r.readings.values()].map((x) => ({
            key: x.field as string,
            value: x.value,
            observed_epoch: x.observedEpoch,
            label: null,
          })),
          ...[...r.extras.values()].map((x) => ({
            key: x.key,
            value: x.value as number | null,
            observed_epoch: x.observedEpoch,
            label: x.label ?? null,
          })),
        ],
      }));
  }

  /** Running sources of one kind, for the ingest routes to find their target. */
  sourcesOfKind<T extends WeatherSource>(kind: string): { entry: SourceEntry; source: T }[] {
    return [...this.runtimes.values()]
      .filter((r) => r.entry.kind === kind && r.source !== null)
      .map((r) => ({ entry: r.entry, source: r.source as T }));
  }

  /** The source ids that own each field now, and each source's provided fields. */
  ownership(): { selections: ReadonlyMap<WeatherField, Selection> } {
    return { selections: this.build().selections };
  }

  /** Starts, stops and rebuilds sources to match the config; unchanged sources keep their state. */
  reconfigure(): Promise<void> {
    // Config changes can arrive close together; each reconfiguration finishes before the next starts.
    return this.reconfigureLock.run(() => this.reconcile());
  }

  private async reconcile(): Promise<void> {
    const applied = this.deps.config();
    const location = applied ? locationOf(applied) : null;
    const locationChanged = JSON.stringify(location) !== JSON.stringify(this.location);
    this.location = location;
    const wanted = location ? this.wantedEntries(applied as AppliedConfig) : [];
    for (const [id, runtime] of this.runtimes) {
      const entry = wanted.find((e) => e.id === id);
      if (!entry || locationChanged || fingerprint(entry) !== runtime.fingerprint) {
        await this.stopRuntime(runtime);
        this.runtimes.delete(id);
      } else {
        runtime.entry = entry; // priority-only changes apply without a restart
      }
    }
    for (const entry of wanted) {
      if (this.runtimes.has(entry.id)) continue;
      const runtime = this.createRuntime(entry, location as SourceLocation, applied as AppliedConfig);
      this.runtimes.set(entry.id, runtime);
      await this.startRuntime(runtime);
    }
    this.markDirty();
  }

  private wantedEntries(applied: AppliedConfig): SourceEntry[] {
    const entries = [...applied.config.sources];
    const demo = this.deps.demo || applied.config.features.demo_mode;
    if (demo && !entries.some((e) => e.kind === 'demo_replay')) entries.push(DEMO_SOURCE);
    return entries;
  }

  private createRuntime(entry: SourceEntry, location: SourceLocation, applied: AppliedConfig): SourceRuntime {
    const definition = this.deps.kinds.get(entry.kind) ?? null;
    const runtime: SourceRuntime = {
      entry,
      fingerprint: fingerprint(entry),
      definition,
      source: null,
      startedEpoch: epochSeconds(this.deps.clock),
      readings: new Map(),
      extras: new Map(),
      lightning: new LightningTracker(),
      lastContactOkEpoch: null,
      lastObservationEpoch: null,
      note: null,
      devices: this.storedDevices(entry.id),
      stationSerial: null,
      hubSerial: null,
      storedAt: new Map(),
    };
    if (!entry.enabled || !definition) return runtime;
    try {
      const parsed = validatedBlock(applied, entry, definition);
      runtime.source = this.instantiate(definition, entry, runtime, location, parsed);
    } catch (err) {
      runtime.note = `could not be built: ${(err as Error).message}`;
      this.log.error({ source: entry.id, err }, 'source could not be built');
    }
    return runtime;
  }

  private instantiate(
    definition: SourceKindDefinition,
    entry: SourceEntry,
    runtime: SourceRuntime,
    location: SourceLocation,
    parsedConfig: unknown,
  ): WeatherSource {
    return definition.create({
      id: entry.id,
      config: entry.config,
      // A copy, as a parse would give: the source owns what it receives.
      ...(parsedConfig === undefined ? {} : { parsedConfig: copyPlain(parsedConfig) }),
      clock: this.deps.clock,
      logger: this.log.child({ source: entry.id, kind: entry.kind }),
      location,
      fetch: this.sourceFetch(entry.kind),
      sink: {
        publish: (batch) => this.accept(runtime, batch),
        contact: (ok, note) => this.contact(runtime, ok, note),
      },
    });
  }

  private sourceFetch(kind: string): typeof fetch {
    const inner = this.deps.fetch ?? fetch;
    return this.deps.fetchFor ? this.deps.fetchFor(kind, inner) : inner;
  }

  private async startRuntime(runtime: SourceRuntime): Promise<void> {
    if (!runtime.source) return;
    try {
      await runtime.source.start();
      this.log.info({ source: runtime.entry.id, kind: runtime.entry.kind }, 'source started');
    } catch (err) {
      runtime.note = `could not start: ${(err as Error).message}`;
      this.log.error({ source: runtime.entry.id, err }, 'source failed to start');
    }
  }

  private async stopRuntime(runtime: SourceRuntime): Promise<void> {
    if (!runtime.source) return;
    try {
      await runtime.source.stop();
    } catch (err) {
      this.log.warn({ source: runtime.entry.id, err }, 'source failed to stop cleanly');
    }
    runtime.source = null;
  }

  /** A source's batch: keep the newest reading per field, track lightning, persist, announce. */
  private accept(runtime: SourceRuntime, batch: SourceBatch): void {
    if (!this.runtimes.has(runtime.entry.id) || runtime.source === null) return;
    const now = epochSeconds(this.deps.clock);
    for (const reading of batch.readings ?? []) {
      if (!isWeatherField(reading.field)) continue;
      const previous = runtime.readings.get(reading.field);
      // A far-future reading (bad device clock) must not shadow the real readings that follow it.
      if (
        previous &&
        previous.observedEpoch > reading.observedEpoch &&
        !isFarFuture(previous.observedEpoch, now)
      ) {
        continue;
      }
      runtime.readings.set(reading.field, reading);
      this.observed(runtime, reading.observedEpoch, now);
      if (reading.field === 'lightning_count_last_min' && reading.value !== null) {
        runtime.lightning.addInterval(reading.observedEpoch, reading.value);
      }
    }
    for (const strike of batch.strikes ?? []) {
      runtime.lightning.addStrike(strike);
      this.observed(runtime, strike.epoch, now); // a strike event is an observation too
    }
    for (const extra of batch.extras ?? []) runtime.extras.set(extra.key, extra);
    for (const device of batch.devices ?? []) {
      const seen = channelsSeen(device, batch, now);
      const merged = mergeDevice(runtime.devices.get(device.id), { ...device, channels: seen });
      runtime.devices.set(device.id, merged);
      this.persistDevice(merged, seen);
    }
    if (batch.stationSerial) runtime.stationSerial = batch.stationSerial;
    if (batch.hubSerial) runtime.hubSerial = batch.hubSerial;
    this.persistRaw(runtime, batch, now);
    this.markDirty();
  }

  /** Advances the source's last observation time; a far-future stamp is no evidence of contact. */
  private observed(runtime: SourceRuntime, epoch: number, now: number): void {
    if (isFarFuture(epoch, now)) return;
    runtime.lastObservationEpoch = Math.max(runtime.lastObservationEpoch ?? 0, epoch);
  }

  private contact(runtime: SourceRuntime, ok: boolean, note?: string): void {
    if (ok) {
      runtime.lastContactOkEpoch = epochSeconds(this.deps.clock);
      runtime.note = null;
    } else {
      runtime.note = note ?? 'contact failed';
    }
    this.markDirty();
  }

  private markDirty(): void {
    this.dirty = true;
    this.scheduleEmit();
  }

  /** Coalesces snapshot events: at most one per EMIT_INTERVAL_MS, and only when the snapshot changed. */
  private scheduleEmit(): void {
    if (this.emitTimer) return;
    const wait = Math.max(0, this.lastEmitMs + EMIT_INTERVAL_MS - this.deps.clock.nowMs());
    this.emitTimer = setTimeout(() => {
      this.emitTimer = null;
      this.lastEmitMs = this.deps.clock.nowMs();
      const snapshot = this.snapshot();
      const json = JSON.stringify(snapshot);
      if (json === this.lastEmittedJson) return;
      this.lastEmittedJson = json;
      this.deps.bus.emit('weather.snapshot', snapshot);
    }, wait);
    this.emitTimer.unref();
  }

  private build(): { snapshot: WeatherSnapshot; selections: Map<WeatherField, Selection> } {
    const now = epochSeconds(this.deps.clock);
    if (this.cached && !this.dirty && now === this.builtAtEpoch) return this.cached;
    const sources = [...this.runtimes.values()].filter((r) => r.source !== null);
    for (const runtime of sources) this.refreshTimeDependent(runtime, now);
    const config = this.deps.config()?.config;
    const selections = mergeFields(
      sources.map((r) => ({
        id: r.entry.id,
        priority: r.entry.priority,
        minLiveS: r.definition?.minLiveS,
        readings: r.readings,
      })),
      { overrides: config?.engine.overrides ?? {}, chains: config?.engine.field_source_chains ?? {} },
      now,
    );
    const lightningOwner = this.runtimes.get(
      selections.get('lightning_strikes_last_hour')?.sourceId ??
        selections.get('lightning_count_last_min')?.sourceId ??
        '',
    );
    const identity = this.identitySource(selections);
    const snapshot = buildWeatherSnapshot({
      selections,
      lastPacketEpoch: maxOf(sources.map((r) => r.lastObservationEpoch)),
      pressureTrend: [...this.pressureTrend],
      lightningRecent: lightningOwner?.lightning.recent(now) ?? [],
      lastStrike: this.lastStrike(sources),
      stationSerial: identity?.stationSerial ?? null,
      hubSerial: identity?.hubSerial ?? null,
      labels: new Map(sources.map((r) => [r.entry.id, r.definition?.label ?? r.entry.id])),
      stations: new Set(
        sources
          .filter((r) => !r.definition?.cloud && !this.deps.modelledKinds.has(r.entry.kind))
          .map((r) => r.entry.id),
      ),
    });
    this.cached = { snapshot, selections };
    this.dirty = false;
    this.builtAtEpoch = now;
    return this.cached;
  }

  /** Values that move with time alone: today's rain (local midnight), strikes in the last hour (decay). */
  private refreshTimeDependent(runtime: SourceRuntime, now: number): void {
    const timed = runtime.source?.readingsAt?.(now) ?? [];
    for (const reading of timed) {
      runtime.readings.set(reading.field, reading);
      runtime.lastObservationEpoch = Math.max(runtime.lastObservationEpoch ?? 0, reading.observedEpoch);
    }
    // A source that counts its own hour of strikes (deduplicating replays) knows best; else count here.
    const counted = timed.some((r) => r.field === 'lightning_strikes_last_hour');
    if (!counted && runtime.lightning.hasEvidence && runtime.lastObservationEpoch !== null) {
      runtime.readings.set('lightning_strikes_last_hour', {
        field: 'lightning_strikes_last_hour',
        value: runtime.lightning.strikesLastHour(now),
        observedEpoch: runtime.lastObservationEpoch,
      });
    }
  }

  /** Serials come from the source that owns the air temperature, else any that reported them. */
  private identitySource(selections: ReadonlyMap<WeatherField, Selection>): SourceRuntime | undefined {
    const owner = this.runtimes.get(selections.get('air_temp_f')?.sourceId ?? '');
    if (owner?.stationSerial || owner?.hubSerial) return owner;
    return [...this.runtimes.values()].find((r) => r.source !== null && (r.stationSerial || r.hubSerial));
  }

  private lastStrike(sources: SourceRuntime[]): { epoch: number; distanceMi: number | null } | null {
    const strikes = sources.map((r) => r.lightning.lastStrike()).filter((s) => s !== null);
    strikes.sort((a, b) => b.epoch - a.epoch);
    return strikes[0] ?? null;
  }

  /** Every 15 s: decay and aging reach subscribers, the pressure trend and merged history advance. */
  tick(): void {
    const now = epochSeconds(this.deps.clock);
    this.dirty = true;
    const snapshot = this.snapshot();
    if (snapshot.pressure_inhg !== null && now - this.lastPressureSampleEpoch >= PRESSURE_SAMPLE_S) {
      this.pressureTrend = [...this.pressureTrend, snapshot.pressure_inhg].slice(-PRESSURE_SAMPLES);
      this.lastPressureSampleEpoch = now;
      this.dirty = true;
    }
    if (now - this.lastHistoryEpoch >= HISTORY_EVERY_S) {
      this.persistMerged(now);
      this.lastHistoryEpoch = now;
    }
    this.announceStatusChanges(now);
    this.scheduleEmit();
  }

  /**
   * `source.status` for each enabled source whose health status changed since
   * the last tick. A source that has said nothing since it started is not
   * called offline before the hard-offline window has passed (spec 3: offline
   * is no contact for that window), so a restart does not announce every
   * source offline for the seconds before its first packet.
   */
  private announceStatusChanges(now: number): void {
    const current = new Set<string>();
    for (const row of this.sourceHealth()) {
      const runtime = this.runtimes.get(row.id);
      if (!row.enabled || !runtime) continue;
      current.add(row.id);
      const starting = row.last_seen_epoch === null && now - runtime.startedEpoch < HARD_OFFLINE_S;
      if (row.status === 'offline' && starting) continue;
      const previous = this.announcedStatus.get(row.id) ?? null;
      if (previous === row.status) continue;
      this.announcedStatus.set(row.id, row.status);
      this.deps.bus.emit('source.status', {
        id: row.id,
        kind: row.kind,
        status: row.status,
        previous,
        epoch: now,
      });
    }
    for (const id of [...this.announcedStatus.keys()]) if (!current.has(id)) this.announcedStatus.delete(id);
  }

  /** Raw per-source history: each field and extra at most once a minute. */
  /** The source's devices as last recorded, so /devices is not empty after a restart. */
  private storedDevices(sourceId: string): Map<string, DeviceRecord> {
    try {
      const stored = this.deps.store?.deviceRecords.forSource(sourceId) ?? [];
      return new Map(stored.map((d) => [d.id, { ...d, sensors: d.channels.map((c) => c.key) }]));
    } catch (err) {
      this.log.warn({ source: sourceId, err: (err as Error).message }, 'device records not read');
      return new Map();
    }
  }

  /** Upserts the device and the channels this message showed; the others keep their rows. */
  private persistDevice(device: DeviceRecord, seen: DeviceChannel[]): void {
    try {
      this.deps.store?.deviceRecords.save({ ...device, channels: seen });
    } catch (err) {
      this.log.warn({ device: device.id, err: (err as Error).message }, 'device record not stored');
    }
  }

  private persistRaw(runtime: SourceRuntime, batch: SourceBatch, now: number): void {
    const store = this.deps.store;
    if (!store) return;
    const rows: { epoch: number; source_id: string; field: string; value: number | null }[] = [];
    const due = (key: string, epoch: number) => {
      const last = runtime.storedAt.get(key);
      if (last !== undefined && epoch - last < HISTORY_EVERY_S) return false;
      runtime.storedAt.set(key, epoch);
      return true;
    };
    for (const r of batch.readings ?? []) {
      if (r.value !== null && due(r.field, r.observedEpoch)) {
        rows.push({ epoch: r.observedEpoch, source_id: runtime.entry.id, field: r.field, value: r.value });
      }
    }
    for (const x of batch.extras ?? []) {
      if (due(x.key, x.observedEpoch)) {
        rows.push({ epoch: x.observedEpoch, source_id: runtime.entry.id, field: x.key, value: x.value });
      }
    }
    if (rows.length === 0) return;
    try {
      store.readings.insertMany(rows);
    } catch (err) {
      this.log.warn({ err, now }, 'could not store readings');
    }
  }

  /** The merged headline series behind /weather/history: only values with live evidence. */
  private persistMerged(now: number): void {
    const store = this.deps.store;
    if (!store) return;
    const { selections } = this.build();
    const rows = [...selections.values()]
      .filter((s) => fieldSpec(s.field).headline)
      .map((s) => ({ epoch: now, source_id: MERGED_SOURCE_ID, field: s.field, value: s.value }));
    try {
      if (rows.length > 0) store.readings.insertMany(rows);
      const days = this.deps.config()?.config.engine.history_retention_days;
      if (days) store.readings.pruneOlderThan(now, days * 86400);
    } catch (err) {
      this.log.warn({ err }, 'could not store merged history');
    }
  }
}

export { MERGED_SOURCE_ID };

/**
 * The entry's block as validation parsed it, when that parse used this kind's own
 * schema (the validator's registry holds the definition's schema) and the entry is
 * the config's own (not the demo source added beside it); undefined otherwise.
 */
function validatedBlock(
  applied: AppliedConfig,
  entry: SourceEntry,
  definition: SourceKindDefinition,
): unknown {
  if (!applied.kindConfigs || !applied.config.sources.includes(entry)) return undefined;
  if (sourceKind(entry.kind)?.configSchema !== definition.configSchema) return undefined;
  return applied.kindConfigs.sources[entry.id];
}

function locationOf(applied: AppliedConfig): SourceLocation {
  const { location, timezone } = applied.config.deployment;
  return {
    lat: location.lat,
    lon: location.lon,
    elevationM: location.elevation_m ?? null,
    timezone: resolveTimezone(timezone ?? null, location.lat, location.lon),
  };
}

/** What makes a source need a rebuild: anything but its priority. */
function fingerprint(entry: SourceEntry): string {
  return JSON.stringify({ kind: entry.kind, enabled: entry.enabled, config: entry.config });
}

function maxOf(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : Math.max(...present);
}
