import type { SendResult } from '../types';

/**
 * How an HTTP answer from a notification service reads as a delivery result:
 * 2xx delivered; 408, 429 and 5xx may pass (retry, honouring Retry-After);
 * any other 4xx is the request or the credential and will not pass by
 * waiting. Errors name the status and a short piece of the body, with the
 * channel's secrets scrubbed.
 */

const BODY_SHOWN = 200;

export function httpOutcome(
  response: { status: number; headers: Headers },
  body: string,
  secrets: readonly string[],
  sentDetail: string,
): SendResult {
  if (response.status >= 200 && response.status < 300) return { status: 'sent', detail: sentDetail };
  const detail = scrub(`HTTP ${response.status}${describe(body)}`, secrets);
  if (response.status === 408 || response.status === 429 || response.status >= 500) {
    const retryAfterMs = retryAfter(response.headers.get('retry-after'));
    return { status: 'retry', detail, ...(retryAfterMs === null ? {} : { retryAfterMs }) };
  }
  return { status: 'failed', detail };
}

/** A request that got no answer (refused, reset, DNS, timeout): worth another try. */
export function transportFailure(err: unknown, secrets: readonly string[]): SendResult {
  return { status: 'retry', detail: scrub(transportText(err), secrets) };
}

function transportText(err: unknown): string {
  const error = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError') return 'no answer in time';
  const cause = error?.cause?.code ?? error?.cause?.message;
  return cause ? `${error.message ?? 'request failed'} (${cause})` : (error?.message ?? String(err));
}

function describe(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (!text) return '';
  return `: ${text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}…` : text}`;
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfter(value: string | null, nowMs = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Replaces each secret (and its URL-encoded form) in text; short values are left, they would match by chance. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}
