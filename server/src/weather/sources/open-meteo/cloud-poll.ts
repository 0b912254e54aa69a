import type { z } from 'zod';
import type { ZodNamespace } from '../../../core/zod-lazy';
import type { Logger } from '../../../core/logger';
import type { WeatherField } from '../../fields';
import type { Reading, SourceBatch, SourceContext, WeatherSource } from '../../source';
import { safeParseSourceConfig } from '../../source';

/**
 * The polling machinery the cloud current-conditions kinds share (Open-Meteo,
 * NWS, OpenWeather). One poll = one or more HTTP requests that either yield a
 * batch, which is published followed by `contact(true)`, or fail, which yields
 * `contact(false, note)` and publishes nothing. Nothing of a failed poll is
 * kept. Values the provider does not give are left out, never sent as 0.
 *
 * It lives in the open-meteo folder only because that was the first cloud kind;
 * it belongs in `weather/sources/` once shared source helpers have a home.
 */

export const POLL_INTERVAL_DEFAULT_S = 600;
export const REQUEST_TIMEOUT_DEFAULT_S = 20;
/** A larger answer is not a current-conditions document: refuse it instead of buffering it. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The config fields every polling source shares (each kind builds them into its own schema). */
export const pollIntervalSchema = (z: ZodNamespace) =>
  z.number().int().min(60).max(3600).nullish().describe('seconds between polls, 60..3600; null = 600');
export const timeoutSchema = (z: ZodNamespace) =>
  z.number().int().min(1).max(120).nullish().describe('seconds one poll may take; null = 20');
export const baseUrlSchema = (z: ZodNamespace) =>
  z
    .string()
    .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'an http(s) URL without query or fragment')
    .nullish()
    .describe('null = the production endpoint');

/** A poll failure whose message is the contact note (it must never carry a secret). */
export class PollFailure extends Error {}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number, else undefined (null, strings and NaN are "no value"). */
export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A coordinate for a query string: at most 6 decimals (about 0.1 m), never exponent notation. */
export function coordinate(value: number): string {
  const rounded = Number(value.toFixed(6));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Decimal places kept per field: the resolution the snapshot units need, with float noise removed. */
const DECIMALS: Partial<Record<WeatherField, number>> = {
  air_temp_f: 2,
  rh_pct: 1,
  pressure_inhg: 3,
  wind_avg_mph: 2,
  wind_gust_mph: 2,
  wind_dir_deg: 1,
  solar_w_m2: 1,
  uv_index: 2,
  rain_intensity_in_hr: 4,
  pop_pct: 0,
};

/** Collects readings that share one observation time; absent values are skipped, never zeroed. */
export class ReadingSet {
  private readonly list: Reading[] = [];

  constructor(private readonly observedEpoch: number) {}

  add(field: WeatherField, value: number | undefined): void {
    if (value === undefined || !Number.isFinite(value)) return;
    const places = DECIMALS[field];
    const kept = places === undefined ? value : Number(value.toFixed(places));
    this.list.push({ field, value: Object.is(kept, -0) ? 0 : kept, observedEpoch: this.observedEpoch });
  }

  readings(): Reading[] {
    return [...this.list];
  }

  fields(): WeatherField[] {
    return this.list.map((r) => r.field);
  }
}

function describeFailure(err: unknown, timeoutS: number): string {
  if (err instanceof PollFailure) return err.message;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutS} s`;
  if (e?.name === 'AbortError') return 'request aborted';
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `request failed: ${cause ?? e?.message ?? String(err)}`;
}

/**
 * Base of a polled cloud source: scheduling (first poll at start, then every
 * interval, never two at once), per-poll timeout, stop that aborts the poll in
 * flight, and the publish/contact verdict.
 */
export abstract class PolledCloudSource implements WeatherSource {
  abstract readonly kind: string;
  readonly id: string;
  protected readonly log: Logger;
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> | null = null;
  private halt = new AbortController();
  private running = false;

  protected constructor(
    protected readonly ctx: SourceContext,
    private readonly intervalS: number,
    private readonly timeoutS: number,
    /** Values scrubbed from every note and log line (API keys). */
    private readonly secrets: readonly string[] = [],
  ) {
    this.id = ctx.id;
    this.log = ctx.logger;
  }

  async start(): Promise<void> {
    if (this.running) return;
    if (this.halt.signal.aborted) this.halt = new AbortController();
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.halt.abort();
    await this.inflight;
  }

  /** One poll now (joins the poll in flight, if any). Never rejects. */
  pollOnce(): Promise<void> {
    if (!this.inflight) {
      this.inflight = this.runPoll().finally(() => {
        this.inflight = null;
      });
    }
    return this.inflight;
  }

  /** The requests and parsing of one poll; throws PollFailure (or a transport error) when it has no batch. */
  protected abstract fetchBatch(signal: AbortSignal): Promise<SourceBatch>;

  /** GET with the poll's signal; the body is read in full (it counts against the timeout). */
  protected async get(
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    const response = await this.ctx.fetch(url, { method: 'GET', headers, signal, redirect: 'follow' });
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new PollFailure(`HTTP ${response.status} answer too large (${declared} bytes)`);
    }
    const text = await response.text();
    if (text.length > MAX_BODY_BYTES) throw new PollFailure(`HTTP ${response.status} answer too large`);
    let json: unknown = undefined;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json };
  }

  /** Removes secret values from text bound for notes or logs. */
  protected scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (secret !== '') out = out.split(secret).join('***');
    }
    return out;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pollOnce().finally(() => {
        if (this.running && this.timer === null) this.schedule(this.intervalS * 1000);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async runPoll(): Promise<void> {
    const signal = AbortSignal.any([this.halt.signal, AbortSignal.timeout(this.timeoutS * 1000)]);
    let batch: SourceBatch;
    try {
      batch = await this.fetchBatch(signal);
    } catch (err) {
      if (this.halt.signal.aborted) return; // stopped mid-poll: no verdict either way
      const note = this.scrub(describeFailure(err, this.timeoutS));
      this.log.warn({ note }, 'poll failed');
      this.ctx.sink.contact(false, note);
      return;
    }
    if (this.halt.signal.aborted) return;
    try {
      this.ctx.sink.publish(batch);
      this.ctx.sink.contact(true);
    } catch (err) {
      // The sink is the weather service's; its failure is not the provider's, and must not escape the timer.
      this.log.error({ err }, 'sink rejected a batch');
    }
  }
}

/**
 * Stands in for a source whose `config` block does not parse (the validator
 * should have refused it first): it reports why through contact(false) and
 * never polls, instead of throwing out of the weather service's create().
 */
class MisconfiguredSource implements WeatherSource {
  readonly id: string;

  constructor(
    private readonly ctx: SourceContext,
    readonly kind: string,
    private readonly note: string,
  ) {
    this.id = ctx.id;
  }

  async start(): Promise<void> {
    this.ctx.logger.error({ note: this.note }, 'source config invalid; not polling');
    this.ctx.sink.contact(false, this.note);
  }

  async stop(): Promise<void> {}

  async pollOnce(): Promise<void> {
    this.ctx.sink.contact(false, this.note);
  }
}

/** Parses the entry's config with the kind's schema and builds the source, or a MisconfiguredSource. */
export function createChecked<S extends z.ZodType, T extends WeatherSource>(
  kind: string,
  schema: S,
  ctx: SourceContext,
  build: (config: z.infer<S>) => T,
): T | WeatherSource {
  const parsed = safeParseSourceConfig(schema, ctx);
  if (parsed.success) return build(parsed.data);
  // Paths and messages only: zod issues can carry the offending input (an API key).
  const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
  return new MisconfiguredSource(ctx, kind, `config invalid: ${detail}`);
}
