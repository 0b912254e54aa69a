import type { z } from 'zod';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { WeatherField } from './fields';

/**
 * The one interface every weather source kind implements. A source turns its
 * device's or service's messages into readings in snapshot units and hands
 * them to its sink; the weather service merges, ages and serves them. Sources
 * never read each other's state and never touch the snapshot.
 */

/** One measurement of one field. `value` null means the source said "no value" (never a fake 0). */
export interface Reading {
  field: WeatherField;
  value: number | null;
  /** When the measurement was taken (device time when the message carries one), epoch seconds. */
  observedEpoch: number;
}

/** A lightning strike event as the sensor reported it. */
export interface StrikeEvent {
  epoch: number;
  distanceMi: number | null;
  energy: number | null;
}

/** A reading the snapshot does not carry but history and pickers do (soil channels, indoor sensors). */
export interface ExtraReading {
  /** Stable key within the source, e.g. `soil_moisture_pct:1`. */
  key: string;
  value: number;
  observedEpoch: number;
  label?: string;
}

export type DeviceKind = 'hub' | 'station' | 'gateway' | 'cloud_account' | 'controller';

/** A physical or cloud device behind a source, for /devices. */
export interface DeviceRecord {
  id: string;
  kind: DeviceKind;
  source_id: string;
  model: string | null;
  serial: string | null;
  firmware: string | null;
  host: string | null;
  /** Field names or extra-reading keys the device provides. */
  sensors: string[];
  battery_v: number | null;
  rssi_dbm: number | null;
  last_seen_epoch: number | null;
  status_note: string | null;
  /** Each sensor the device has reported: when last, and a soil channel's battery (kept across restarts). */
  channels?: DeviceChannel[];
}

/** One sensor channel of a device (a gateway's WH51 CH1, its outdoor temperature). */
export interface DeviceChannel {
  key: string;
  last_seen_epoch: number | null;
  battery: number | null;
}

/** Everything a source hands over after one message, poll or push. Every part is optional. */
export interface SourceBatch {
  readings?: Reading[];
  strikes?: StrikeEvent[];
  extras?: ExtraReading[];
  devices?: DeviceRecord[];
  /** Station and hub serials, when the message names them. */
  stationSerial?: string;
  hubSerial?: string;
}

export interface SourceSink {
  publish(batch: SourceBatch): void;
  /**
   * Contact outcome: true after any successful fetch or received message,
   * false with a human note after a failure. Drives source status.
   */
  contact(ok: boolean, note?: string): void;
}

/** The deployment facts sources need (time zone for local-day rain, location for model queries). */
export interface SourceLocation {
  lat: number;
  lon: number;
  elevationM: number | null;
  timezone: string;
}

export interface SourceContext {
  id: string;
  /** The entry's per-kind `config` block, interpolated and validated. */
  config: Record<string, unknown>;
  /**
   * What this kind's own schema made of `config` when the config was validated
   * (AppliedConfig.kindConfigs); absent otherwise. Read through
   * `parseSourceConfig` / `safeParseSourceConfig`, which parse only without it.
   */
  parsedConfig?: unknown;
  clock: Clock;
  logger: Logger;
  location: SourceLocation;
  sink: SourceSink;
  /** Injected so tests point clients at loopback peers. */
  fetch: typeof fetch;
}

export interface WeatherSource {
  readonly id: string;
  readonly kind: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Readings whose value depends on the current time and not only on the last
   * message: today's rain (resets at local midnight), strikes in the last hour
   * (decay). Called whenever the snapshot is rebuilt. A source that returns
   * `lightning_strikes_last_hour` here is trusted with it; otherwise the
   * weather service counts strikes from the source's batches.
   */
  readingsAt?(nowEpoch: number): Reading[];
}

/** A source that receives pushed bodies (gateway ingest, webhook) instead of fetching. */
export interface IngestSource extends WeatherSource {
  /** Parses one pushed body; throws IngestRejected when it does not parse. Nothing of a rejected body is kept. */
  ingest(body: unknown, contentType: string | undefined): void;
}

export class IngestRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SourceKindDefinition {
  kind: string;
  label: string;
  /** The fields this kind can provide (for source status and the field-source picker). */
  provides: readonly WeatherField[];
  /** Schema of the entry's `config` block (registered with the config validator). */
  configSchema: z.ZodType;
  /** Readings stay live at least this long whatever the field (providers that publish hourly). */
  minLiveS?: number;
  /** A cloud weather provider (listed in /config/source_catalog), with its honesty rank (higher first). */
  cloud?: { honestyRank: number; needsApiKey: boolean };
  create(ctx: SourceContext): WeatherSource;
}

/**
 * The entry's `config` block as `schema` parses it: the validator's output when
 * the context carries it (the same schema parsed the same block, so zod need
 * not load), else a parse now (throws like `schema.parse`).
 */
export function parseSourceConfig<S extends z.ZodType>(schema: S, ctx: SourceContext): z.output<S> {
  return ctx.parsedConfig !== undefined ? (ctx.parsedConfig as z.output<S>) : schema.parse(ctx.config);
}

/** `parseSourceConfig` for callers that report a block that does not parse instead of throwing. */
export function safeParseSourceConfig<S extends z.ZodType>(
  schema: S,
  ctx: SourceContext,
): z.ZodSafeParseResult<z.output<S>> {
  return ctx.parsedConfig !== undefined
    ? { success: true, data: ctx.parsedConfig as z.output<S> }
    : schema.safeParse(ctx.config);
}
