import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * package.json's engines line is true: every package the lockfile installs
 * (dev tools and optional platform builds included, as `npm ci` installs
 * them) accepts the lowest Node of each range it names, so `npm ci` never
 * warns EBADENGINE on a Node the README promises.
 */

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

/** The lowest version of each range of the engines line (`^20.19.0 || ^22.13.0 || >=24` -> 20.19.0, 22.13.0, 24.0.0). */
function floors(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => {
    const low = comparators.find((c) => c.operator === '>=' || c.operator === '');
    return low?.semver.version ?? '0.0.0';
  });
}

function refusing(version: string): string[] {
  return Object.entries(lock.packages)
    .filter(([name, entry]) => name !== '' && !Array.isArray(entry.engines) && entry.engines?.node)
    .filter(([, entry]) => !semver.satisfies(version, (entry.engines as { node: string }).node))
    .map(([name, entry]) => `${name} wants node ${(entry.engines as { node: string }).node}`);
}

describe('the engines line', () => {
  it('names Node 20 (the README promises it) and the lockfile agrees', () => {
    expect(floors(pkg.engines.node)[0]).toMatch(/^20\./);
    const root = lock.packages[''] as { engines?: { node?: string } };
    expect(root.engines?.node).toBe(pkg.engines.node);
  });

  it.each(floors(pkg.engines.node))('every locked package runs on node %s', (version) => {
    expect(refusing(version)).toEqual([]);
  });

  it('holds for the node running these tests', () => {
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true);
    expect(refusing(process.version)).toEqual([]);
  });
});
