import { epochSeconds, type Clock } from '../../core/clock';
import { LocalTime } from '../../core/tz/local-time';
import { timeZone } from '../../core/tz/time-zone';
import { ForecastUnavailable, type ForecastRequest, type HourlyEntry } from '../types';

/**
 * What the HTTP forecast providers (Open-Meteo, NWS, MET Norway) share: one
 * deadline per fetch, a GET that reads the whole body under that deadline,
 * failure messages that are safe to show (no URLs, keys or bodies), and the
 * small value helpers that turn "no value" into null, never 0.
 */

export const FORECAST_TIMEOUT_DEFAULT_MS = 20_000;
/** A larger answer is not a point forecast: refuse it instead of buffering it. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MESSAGE_MAX = 300;

/** Options every HTTP provider takes. */
export interface HttpProviderOptions {
  id: string;
  baseUrl?: string;
  fetch: typeof fetch;
  clock: Clock;
  /** The whole fetch (every request of it) must finish within this; default 20 s. */
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

/** The caller's signal (if any) joined with this fetch's deadline. */
export class FetchDeadline {
  readonly signal: AbortSignal;
  private readonly timeout: AbortSignal;

  constructor(
    readonly timeoutMs: number,
    caller?: AbortSignal,
  ) {
    this.timeout = AbortSignal.timeout(timeoutMs);
    this.signal = caller ? AbortSignal.any([caller, this.timeout]) : this.timeout;
  }

  get timedOut(): boolean {
    return this.timeout.aborted;
  }
}

/** GET with the deadline; transport failures become a ForecastUnavailable naming the provider. */
export async function httpGet(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  deadline: FetchDeadline,
  label: string,
): Promise<HttpAnswer> {
  try {
    const response = await fetchImpl(url, {
      method: 'GET',
      headers,
      signal: deadline.signal,
      redirect: 'follow',
    });
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new ForecastUnavailable(`${label}: HTTP ${response.status} answer too large`);
    }
    const text = await response.text();
    if (text.length > MAX_BODY_BYTES) throw new ForecastUnavailable(`${label}: answer too large`);
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  } catch (err) {
    if (err instanceof ForecastUnavailable) throw err;
    throw new ForecastUnavailable(describeTransportFailure(err, deadline, label));
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeTransportFailure(err: unknown, deadline: FetchDeadline, label: string): string {
  if (deadline.timedOut) return `${label}: no answer within ${formatSeconds(deadline.timeoutMs)} s`;
  if (deadline.signal.aborted) return `${label}: request aborted`;
  const e = err as { message?: string; cause?: { code?: string; message?: string } } | null;
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return clip(`${label}: request failed (${cause})`);
}

function formatSeconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

/** Shortens provider-supplied text bound for a failure message. */
export function clip(text: string, max = MESSAGE_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A provider string quoted for a message (bounded, so a hostile answer cannot flood the log). */
export function quote(value: unknown): string {
  return JSON.stringify(typeof value === 'string' ? clip(value, 40) : (value ?? null)) ?? 'null';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number, else null (null, missing, strings and NaN are "no value", never 0). */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A probability as an integer 0..100, else null. */
export function percent(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.min(100, Math.max(0, Math.round(n)));
}

/** Rounds away float noise from unit conversions; null stays null. */
export function round(value: number | null, digits: number): number | null {
  if (value === null) return null;
  const kept = Number(value.toFixed(digits));
  return Object.is(kept, -0) ? 0 : kept;
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** An ISO 8601 time with an explicit offset (or Z) as epoch seconds, else null. */
export function isoEpoch(value: unknown): number | null {
  if (typeof value !== 'string' || !/(Z|[+-]\d{2}:?\d{2})$/.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** Refuses a request the providers cannot answer honestly (no location, unknown zone). */
export function checkRequest(request: ForecastRequest, label: string): void {
  if (!Number.isFinite(request.lat) || !Number.isFinite(request.lon)) {
    throw new ForecastUnavailable(`${label}: no location configured`);
  }
  if (Math.abs(request.lat) > 90 || Math.abs(request.lon) > 180) {
    throw new ForecastUnavailable(`${label}: location out of range`);
  }
  if (!timeZone(request.timezone).isValid) {
    throw new ForecastUnavailable(`${label}: unknown time zone ${quote(request.timezone)}`);
  }
}

/**
 * The span a forecast covers in the deployment's zone: from local midnight
 * `pastDays` before today to local midnight `forecastDays` after the start of
 * today (today counts as one of them). Epoch seconds, end exclusive.
 */
export function localSpan(clock: Clock, request: ForecastRequest): { from: number; to: number } {
  const today = LocalTime.fromSeconds(epochSeconds(clock), timeZone(request.timezone)).startOfDay();
  return {
    from: today.plus({ days: -Math.max(0, request.pastDays) }).seconds,
    to: today.plus({ days: Math.max(1, request.forecastDays) }).seconds,
  };
}

/** Hourly entries inside the span, one per start time (first kept), in time order. */
export function withinSpan(hourly: HourlyEntry[], span: { from: number; to: number }): HourlyEntry[] {
  const seen = new Set<number>();
  return hourly
    .filter((h) => h.time_epoch >= span.from && h.time_epoch < span.to)
    .filter((h) => (seen.has(h.time_epoch) ? false : (seen.add(h.time_epoch), true)))
    .sort((a, b) => a.time_epoch - b.time_epoch);
}
