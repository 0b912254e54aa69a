import { mapSoilChannels, soilChannelSchema } from './soil-channels';
import { HTTP_WEBHOOK_KIND } from '../push-kinds';
import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import type { Logger } from '../../../core/logger';
import {
  WEATHER_FIELDS,
  convert,
  fieldQuantity,
  fieldSpec,
  type Quantity,
  type WeatherField,
} from '../../fields';
import {
  IngestRejected,
  type IngestSource,
  type Reading,
  type SourceContext,
  type SourceKindDefinition,
} from '../../source';
import { parseSourceConfig } from '../../source';
import { DailyRainGuard } from '../ecowitt/daily-rain';
import { secretEquals } from '../ecowitt/secret-compare';

/**
 * The `http_webhook` source: a generic JSON body POSTed to
 * /ingest/webhook/{id} (unauthenticated by design; the per-source path secret
 * is the mitigation, spec 4.8). Each configured mapping reads one number at a
 * dot path ("data.temp", "sensors.0.value") and turns it into one snapshot
 * field:
 *
 *   snapshot value = convert_unit(raw * scale + offset)
 *
 * i.e. `scale` and `offset` act on the raw number in the sender's unit, then
 * `unit` (omitted = already in the snapshot unit) is converted to the
 * snapshot's unit. A path absent from the body (or holding a non-number) gives
 * no reading; an explicit JSON null gives a null reading (the sender said "no
 * value"). Numeric strings ("21.5") count as numbers. `time_path` names the
 * observation time (epoch seconds, epoch milliseconds, or an ISO 8601 string;
 * an ISO string without an offset is read in the deployment's time zone);
 * without it, or when it does not parse, the receive time is used, and a time
 * after the receive time is clamped to it.
 */

export { HTTP_WEBHOOK_KIND };
export const WEBHOOK_SECRET_MIN_LENGTH = 16;

type Dimension = Quantity;

/** What each snapshot field measures, so a mapping's unit can be checked against it. */
const FIELD_DIMENSION = (field: WeatherField): Dimension => fieldQuantity(field);

/** Units a mapping may name, each with what it measures and how it becomes the snapshot unit. */
const UNITS = {
  c: { dimension: 'temperature', toSnapshot: convert.cToF },
  f: { dimension: 'temperature', toSnapshot: (v: number) => v },
  k: { dimension: 'temperature', toSnapshot: (v: number) => convert.cToF(v - 273.15) },
  pct: { dimension: 'percent', toSnapshot: (v: number) => v },
  fraction: { dimension: 'percent', toSnapshot: (v: number) => v * 100 },
  hpa: { dimension: 'pressure', toSnapshot: convert.hpaToInhg },
  pa: { dimension: 'pressure', toSnapshot: convert.paToInhg },
  kpa: { dimension: 'pressure', toSnapshot: (v: number) => convert.hpaToInhg(v * 10) },
  inhg: { dimension: 'pressure', toSnapshot: (v: number) => v },
  mmhg: { dimension: 'pressure', toSnapshot: (v: number) => v / 25.4 },
  ms: { dimension: 'speed', toSnapshot: convert.msToMph },
  kmh: { dimension: 'speed', toSnapshot: convert.kmhToMph },
  mph: { dimension: 'speed', toSnapshot: (v: number) => v },
  kn: { dimension: 'speed', toSnapshot: (v: number) => v * 1.150779448 },
  deg: { dimension: 'direction', toSnapshot: (v: number) => v },
  lux: { dimension: 'illuminance', toSnapshot: (v: number) => v },
  klux: { dimension: 'illuminance', toSnapshot: (v: number) => v * 1000 },
  w_m2: { dimension: 'irradiance', toSnapshot: (v: number) => v },
  mm: { dimension: 'depth', toSnapshot: convert.mmToIn },
  cm: { dimension: 'depth', toSnapshot: (v: number) => convert.mmToIn(v * 10) },
  in: { dimension: 'depth', toSnapshot: (v: number) => v },
  mm_h: { dimension: 'rate', toSnapshot: convert.mmToIn },
  in_h: { dimension: 'rate', toSnapshot: (v: number) => v },
  km: { dimension: 'distance', toSnapshot: convert.kmToMi },
  mi: { dimension: 'distance', toSnapshot: (v: number) => v },
  v: { dimension: 'voltage', toSnapshot: (v: number) => v },
  mv: { dimension: 'voltage', toSnapshot: (v: number) => v / 1000 },
} as const satisfies Record<string, { dimension: Dimension; toSnapshot: (v: number) => number }>;

export type WebhookUnit = keyof typeof UNITS;
export const WEBHOOK_UNITS = Object.keys(UNITS) as WebhookUnit[];

const DOT_PATH = /^[^.\s]+(?:\.[^.\s]+)*$/;

const mappingSchema = lazySchema((z) =>
  z.strictObject({
    path: z.string().regex(DOT_PATH, 'expected a dot path such as "data.temp"'),
    field: z.enum(WEATHER_FIELDS as [WeatherField, ...WeatherField[]]),
    unit: z.enum(WEBHOOK_UNITS as [WebhookUnit, ...WebhookUnit[]]).optional(),
    scale: z.number().optional(),
    offset: z.number().optional(),
  }),
);

export type WebhookMapping = z.output<typeof mappingSchema>;

export const httpWebhookConfigSchema = lazySchema((z) =>
  z
    .looseObject({
      /** Per-source path secret. A secret by its key name. */
      secret: z.string().min(WEBHOOK_SECRET_MIN_LENGTH),
      fields: z.array(mappingSchema).default([]),
      soil_channels: z.array(soilChannelSchema).default([]),
      time_path: z.string().regex(DOT_PATH, 'expected a dot path such as "data.time"').nullish(),
    })
    .superRefine((config, ctx) => {
      if (config.fields.length === 0 && config.soil_channels.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['fields'], message: 'map at least one field or soil channel' });
      }
      const seen = new Set<string>();
      config.fields.forEach((mapping, i) => {
        if (seen.has(mapping.field)) {
          ctx.addIssue({
            code: 'custom',
            path: ['fields', i, 'field'],
            message: `"${mapping.field}" is mapped more than once`,
          });
        }
        seen.add(mapping.field);
        if (mapping.unit === undefined) return;
        const expected = FIELD_DIMENSION(mapping.field);
        const given = UNITS[mapping.unit].dimension;
        if (given !== expected) {
          ctx.addIssue({
            code: 'custom',
            path: ['fields', i, 'unit'],
            message: `unit "${mapping.unit}" measures ${given}, but ${mapping.field} is ${expected === 'count' || expected === 'uv' ? 'a plain number (omit unit)' : expected}`,
          });
        }
      });
    }),
);

export type HttpWebhookConfig = z.output<typeof httpWebhookConfigSchema>;

/** Follows a dot path through objects (own keys only) and arrays (numeric segments). */
export function resolvePath(body: unknown, path: string): { found: boolean; value: unknown } {
  let node: unknown = body;
  for (const segment of path.split('.')) {
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment)) return { found: false, value: undefined };
      const index = Number(segment);
      if (index >= node.length) return { found: false, value: undefined };
      node = node[index];
    } else if (typeof node === 'object' && node !== null) {
      if (!Object.prototype.hasOwnProperty.call(node, segment)) return { found: false, value: undefined };
      node = (node as Record<string, unknown>)[segment];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: node !== undefined, value: node };
}

/** A finite number, or a string that is wholly one; otherwise null. */
export function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/.test(value)) {
    return Number(value);
  }
  return null;
}

/** Epoch seconds from epoch seconds, epoch milliseconds or ISO 8601; null when unreadable. */
export function webhookTime(value: unknown, timezone: string): number | null {
  const n = numeric(value);
  let epoch: number | null = null;
  if (n !== null) {
    epoch = n > 1e11 ? n / 1000 : n;
  } else if (typeof value === 'string') {
    const at = isoTime(value.trim(), timezone);
    if (at.isValid) epoch = at.toSeconds();
  }
  if (epoch === null || epoch < 946684800) return null;
  return Math.floor(epoch);
}

/**
 * luxon's ISO 8601 reader (every form a posting device may send), loaded on
 * the first time string: a webhook that posts epoch numbers, and an idle
 * service, never load luxon.
 */
function isoTime(text: string, timezone: string) {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { DateTime } = require('luxon') as typeof import('luxon');
  const { zoneFor } = require('../../../core/tz/zone') as typeof import('../../../core/tz/zone');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return DateTime.fromISO(text, { zone: zoneFor(timezone) });
}

export interface WebhookMapOptions {
  receivedEpoch: number;
  timezone: string;
  timePath?: string | null;
}

export interface WebhookMapResult {
  observedEpoch: number;
  readings: Reading[];
  /** True when at least one reading has a numeric value. */
  hasNumeric: boolean;
}

/** Applies the mappings to one parsed body. Pure. */
export function mapWebhookBody(
  body: Record<string, unknown>,
  mappings: readonly WebhookMapping[],
  options: WebhookMapOptions,
): WebhookMapResult {
  let observedEpoch = options.receivedEpoch;
  if (options.timePath) {
    const at = webhookTime(resolvePath(body, options.timePath).value, options.timezone);
    if (at !== null) observedEpoch = Math.min(at, options.receivedEpoch);
  }
  const readings: Reading[] = [];
  for (const mapping of mappings) {
    const { found, value } = resolvePath(body, mapping.path);
    if (!found) continue;
    if (value === null) {
      readings.push({ field: mapping.field, value: null, observedEpoch });
      continue;
    }
    const raw = numeric(value);
    if (raw === null) continue;
    const scaled = raw * (mapping.scale ?? 1) + (mapping.offset ?? 0);
    let converted = mapping.unit ? UNITS[mapping.unit].toSnapshot(scaled) : scaled;
    if (fieldSpec(mapping.field).integer) converted = Math.round(converted);
    if (!Number.isFinite(converted)) continue;
    readings.push({ field: mapping.field, value: converted, observedEpoch });
  }
  return { observedEpoch, readings, hasNumeric: readings.some((r) => r.value !== null) };
}

/** A JSON object from a parsed body, JSON text or bytes; null otherwise. */
export function webhookObject(body: unknown): Record<string, unknown> | null {
  let value: unknown = body;
  if (ArrayBuffer.isView(value))
    value = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export class HttpWebhookSource implements IngestSource {
  readonly kind = HTTP_WEBHOOK_KIND;
  readonly id: string;
  private readonly log: Logger;
  private readonly rainGuard: DailyRainGuard;

  constructor(
    private readonly ctx: SourceContext,
    private readonly config: HttpWebhookConfig,
  ) {
    this.id = ctx.id;
    this.log = ctx.logger.child({ module: 'weather.http_webhook', source: ctx.id });
    this.rainGuard = new DailyRainGuard(ctx.location.timezone);
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  readingsAt(nowEpoch: number): Reading[] {
    return this.rainGuard.readingsAt(nowEpoch);
  }

  /** Constant-time comparison with the configured path secret. */
  matchesSecret(secret: string): boolean {
    return secretEquals(secret, this.config.secret);
  }

  /** The route has checked the path secret; a body it cannot use is this sender's failure. */
  ingest(body: unknown, _contentType: string | undefined): void {
    const object = webhookObject(body);
    if (!object) {
      this.ctx.sink.contact(false, 'webhook body is not a JSON object');
      throw new IngestRejected('webhook_unparseable', 'webhook body is not a JSON object');
    }
    const result = mapWebhookBody(object, this.config.fields, {
      receivedEpoch: epochSeconds(this.ctx.clock),
      timezone: this.ctx.location.timezone,
      timePath: this.config.time_path,
    });
    const extras = mapSoilChannels(object, this.config.soil_channels, result.observedEpoch, (b, p) =>
      numeric(resolvePath(b, p).value),
    );
    if (!result.hasNumeric && extras.length === 0) {
      this.ctx.sink.contact(false, 'webhook body had no numeric value at any mapped path');
      throw new IngestRejected('webhook_unparseable', 'no mapped path holds a numeric value');
    }
    const batch = { readings: result.readings, ...(extras.length > 0 ? { extras } : {}) };
    this.rainGuard.note(batch);
    this.ctx.sink.publish(batch);
    this.ctx.sink.contact(true);
    this.log.debug({ readings: result.readings.length }, 'webhook body ingested');
  }
}

export const httpWebhookKind: SourceKindDefinition = {
  kind: HTTP_WEBHOOK_KIND,
  label: 'Generic JSON webhook',
  provides: WEATHER_FIELDS,
  configSchema: httpWebhookConfigSchema,
  create(ctx: SourceContext): HttpWebhookSource {
    return new HttpWebhookSource(ctx, parseSourceConfig(httpWebhookConfigSchema, ctx));
  },
};
