/**
 * Release versions as the releases feed names them (`v1.4.0`, `1.5.0-rc.1`),
 * ordered by semantic-version precedence (semver.org 11): the numeric core
 * first, then a pre-release sorts before its release, its dot-separated
 * identifiers compared numerically when both are numbers, else as text.
 * Build metadata (`+...`) is ignored. Hand-written because the only
 * semver library here is a dev dependency and this is all the check needs.
 */

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export interface ReleaseVersion {
  core: [number, number, number];
  prerelease: string[];
  /** Without the leading `v` and build metadata: how `latest` is reported. */
  text: string;
}

export function parseVersion(raw: string): ReleaseVersion | null {
  const match = VERSION.exec(raw.trim());
  if (!match) return null;
  const core: [number, number, number] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const prerelease = match[4] ? match[4].split('.') : [];
  return { core, prerelease, text: `${core.join('.')}${match[4] ? `-${match[4]}` : ''}` };
}

/** Negative when `a` precedes `b`, positive when it follows, 0 when equal. */
export function compareVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  for (let i = 0; i < 3; i += 1) {
    const d = a.core[i]! - b.core[i]!;
    if (d !== 0) return d;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return b.prerelease.length - a.prerelease.length;
  }
  const n = Math.max(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const d = compareIdentifiers(x, y);
    if (d !== 0) return d;
  }
  return 0;
}

function compareIdentifiers(x: string, y: string): number {
  const xNum = /^\d+$/.test(x);
  const yNum = /^\d+$/.test(y);
  if (xNum && yNum) return Number(x) - Number(y);
  if (xNum !== yNum) return xNum ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}
