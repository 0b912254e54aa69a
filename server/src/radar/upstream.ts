/**
 * Getting JSON from the radar data providers. Every way a request can fail
 * (transport error, timeout, non-2xx status, oversized or unparseable body)
 * becomes a RadarUpstreamError whose message is safe to show a client: it
 * names the provider and what went wrong, never a URL, header or stack.
 */

export class RadarUpstreamError extends Error {
  constructor(
    /** Which provider failed (`open-meteo`, `NHC`, `tropical`). */
    readonly upstream: string,
    message: string,
  ) {
    super(message);
  }
}

/** A bigger answer is not a radar document: refuse it instead of buffering it. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface UpstreamRequest {
  fetch: typeof fetch;
  url: string;
  /** Provider name for messages. */
  upstream: string;
  timeoutMs: number;
  headers?: Record<string, string>;
}

function transportFailure(err: unknown, upstream: string, timeoutMs: number): RadarUpstreamError {
  const e = err as { name?: string; cause?: { code?: unknown } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new RadarUpstreamError(upstream, `${upstream} did not answer within ${timeoutMs / 1000} s`);
  }
  const code = typeof e?.cause?.code === 'string' ? `: ${e.cause.code}` : '';
  return new RadarUpstreamError(upstream, `${upstream} could not be reached${code}`);
}

/** GET and parse JSON; the body read counts against the timeout. */
export async function getJson(request: UpstreamRequest): Promise<unknown> {
  const { upstream, timeoutMs } = request;
  let text: string;
  let status: number;
  try {
    const response = await request.fetch(request.url, {
      method: 'GET',
      headers: { Accept: 'application/json', ...request.headers },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'follow',
    });
    status = response.status;
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new RadarUpstreamError(upstream, `${upstream} answer is too large`);
    }
    text = await response.text();
  } catch (err) {
    if (err instanceof RadarUpstreamError) throw err;
    throw transportFailure(err, upstream, timeoutMs);
  }
  if (status < 200 || status > 299) {
    throw new RadarUpstreamError(upstream, `${upstream} answered HTTP ${status}`);
  }
  if (text.length > MAX_BODY_BYTES) throw new RadarUpstreamError(upstream, `${upstream} answer is too large`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RadarUpstreamError(upstream, `${upstream} answer is not JSON`);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number, else null (null, strings, NaN are "no value"). */
export function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
