import { parseVersion, type ReleaseVersion } from './version-order';

/**
 * Reading the releases feed: the GitHub releases API shape, either the
 * `releases/latest` object or the `releases` list (newest first; drafts and
 * pre-releases are skipped). What is read: `tag_name` (the version, `v`
 * optional) and `html_url` (the release page). Nothing is sent but the
 * request itself: no install id, no version in the query (the User-Agent
 * names the product and its version, as GitHub asks every client to).
 */

export interface LatestRelease {
  version: ReleaseVersion;
  /** The release page; null when the feed names none or not an http(s) one. */
  url: string | null;
}

/** A feed answer larger than this is not a releases feed. */
export const MAX_FEED_BYTES = 2 * 1024 * 1024;
export const FEED_TIMEOUT_MS = 15_000;

export class FeedError extends Error {}

export async function fetchLatestRelease(
  fetchImpl: typeof fetch,
  url: string,
  userAgent: string,
): Promise<LatestRelease> {
  const response = await fetchImpl(url, {
    headers: { accept: 'application/vnd.github+json, application/json', 'user-agent': userAgent },
    signal: AbortSignal.timeout(FEED_TIMEOUT_MS),
    redirect: 'follow',
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new FeedError(`the releases feed answered HTTP ${response.status}`);
  }
  const text = await response.text();
  if (text.length > MAX_FEED_BYTES) throw new FeedError('the releases feed answer is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FeedError('the releases feed did not answer JSON');
  }
  const release = latestOf(body);
  if (!release) throw new FeedError('the releases feed names no release version');
  return release;
}

function latestOf(body: unknown): LatestRelease | null {
  const candidates = Array.isArray(body) ? body : [body];
  for (const entry of candidates) {
    if (typeof entry !== 'object' || entry === null) continue;
    const release = entry as Record<string, unknown>;
    if (release.draft === true || release.prerelease === true) continue;
    const version = typeof release.tag_name === 'string' ? parseVersion(release.tag_name) : null;
    if (!version) continue;
    return { version, url: httpUrl(release.html_url) };
  }
  return null;
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
