import { ECOWITT_INGEST_KIND } from '../push-kinds';
import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import type { Logger } from '../../../core/logger';
import {
  IngestRejected,
  type IngestSource,
  type Reading,
  type SourceContext,
  type SourceKindDefinition,
} from '../../source';
import { parseSourceConfig } from '../../source';
import { RAIN_GAUGES, type RainGauge } from './batch';
import { DailyRainGuard } from './daily-rain';
import { LightningState } from './lightning';
import { ECOWITT_PROVIDES } from './local-poller';
import { secretEquals } from './secret-compare';
import { decodeForm, parseUpload, uploadCredential } from './upload';

/**
 * The `ecowitt_ingest` source: receives the gateway console's "Customized"
 * upload (POST /ingest/gateway, unauthenticated by design, spec 4.8). The
 * upload's PASSKEY (or, for the Wunderground protocol, PASSWORD) must equal
 * the configured `passkey`; the route finds the source with
 * `matchesPasskey(uploadCredential(readUploadFields(body)))` and hands it the
 * body. A body that does not parse, names no credential or carries no usable
 * value throws IngestRejected and nothing of it is kept.
 */

export { ECOWITT_INGEST_KIND };
/** A lightning count change over a longer silence is not attributed to one interval. */
const LIGHTNING_MAX_GAP_S = 1800;

export const ecowittIngestConfigSchema = lazySchema((z) =>
  z.looseObject({
    /** The gateway's PASSKEY (Wunderground protocol: the station key). A secret by its key name. */
    passkey: z.string().min(1),
    rain_gauge: z.enum(RAIN_GAUGES).default('auto'),
  }),
);

export type EcowittIngestConfig = z.output<typeof ecowittIngestConfigSchema>;

/**
 * The body as flat string fields: URL-encoded text (string or bytes), an
 * already-parsed form or query object, or a JSON object (text with a JSON
 * content type, or text that starts with "{"). Null when nothing usable.
 */
export function readUploadFields(body: unknown, contentType?: string): Record<string, string> | null {
  let value: unknown = body;
  if (ArrayBuffer.isView(value))
    value = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return null;
    if (/json/i.test(contentType ?? '') || text.startsWith('{')) {
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        return null;
      }
    } else {
      const fields = decodeForm(text);
      return Object.keys(fields).length > 0 ? fields : null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const fields: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value)) {
    const first: unknown = Array.isArray(raw) ? raw[0] : raw;
    if (typeof first === 'string') fields[key] = first;
    else if (typeof first === 'number' && Number.isFinite(first)) fields[key] = String(first);
  }
  return Object.keys(fields).length > 0 ? fields : null;
}

export { uploadCredential };

export class EcowittIngestSource implements IngestSource {
  readonly kind = ECOWITT_INGEST_KIND;
  readonly id: string;
  private readonly log: Logger;
  private readonly lightning = new LightningState(LIGHTNING_MAX_GAP_S);
  private readonly rainGuard: DailyRainGuard;

  constructor(
    private readonly ctx: SourceContext,
    private readonly config: { passkey: string; rainGauge: RainGauge },
  ) {
    this.id = ctx.id;
    this.log = ctx.logger.child({ module: 'weather.ecowitt_ingest', source: ctx.id });
    this.rainGuard = new DailyRainGuard(ctx.location.timezone);
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  readingsAt(nowEpoch: number): Reading[] {
    return this.rainGuard.readingsAt(nowEpoch);
  }

  /** Constant-time comparison with the configured passkey (surrounding blanks ignored). */
  matchesPasskey(passkey: string): boolean {
    return secretEquals(passkey.trim(), this.config.passkey.trim());
  }

  ingest(body: unknown, contentType: string | undefined): void {
    const fields = readUploadFields(body, contentType);
    if (!fields) throw new IngestRejected('ingest_unparseable', 'body is not a form-encoded gateway upload');
    const credential = uploadCredential(fields);
    if (credential === null) {
      throw new IngestRejected('ingest_unparseable', 'upload carries no PASSKEY (or Wunderground PASSWORD)');
    }
    if (!this.matchesPasskey(credential)) {
      throw new IngestRejected('ingest_passkey_mismatch', 'upload PASSKEY does not match this source');
    }
    const parsed = parseUpload(fields, {
      sourceId: this.id,
      receivedEpoch: epochSeconds(this.ctx.clock),
      rainGauge: this.config.rainGauge,
    });
    if (!parsed.usable) {
      this.ctx.sink.contact(false, 'gateway upload carried no usable value');
      throw new IngestRejected('ingest_unparseable', 'upload carries no usable weather field');
    }
    const batch = this.lightning.apply(parsed.batch, parsed.observedEpoch);
    this.rainGuard.note(batch);
    this.ctx.sink.publish(batch);
    this.ctx.sink.contact(true);
    this.log.debug(
      { protocol: parsed.protocol, readings: batch.readings?.length ?? 0, extras: batch.extras?.length ?? 0 },
      'gateway upload ingested',
    );
  }
}

export const ecowittIngestKind: SourceKindDefinition = {
  kind: ECOWITT_INGEST_KIND,
  label: 'Ecowitt gateway (custom upload)',
  provides: ECOWITT_PROVIDES,
  configSchema: ecowittIngestConfigSchema,
  create(ctx: SourceContext): EcowittIngestSource {
    const config = parseSourceConfig(ecowittIngestConfigSchema, ctx);
    return new EcowittIngestSource(ctx, { passkey: config.passkey, rainGauge: config.rain_gauge });
  },
};
