import fs from 'node:fs';
import path from 'node:path';

/**
 * The skip domain is pure: it imports its own folder, types from the config
 * schema, forecast types and weather snapshot, core/tz (zones and local
 * times, no luxon: issue 27) and the unit
 * formatters; it reads no
 * clock and does no I/O.
 */
const dir = path.join(__dirname, '../../../server/src/irrigation/skip');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts'));

const TYPE_ONLY = new Set(['../../config/schema', '../../forecast/types', '../../weather/snapshot']);
// weather/derived is pure math (the published heat index), shared rather than copied; core/units
// formats the reasons' numbers in the owner's units (pure too).
const VALUES = new Set([
  '../../core/tz/time-zone',
  '../../core/tz/local-time',
  '../../weather/derived',
  '../../core/units/quantities',
  // the decision policy under uncertainty (pure functions; the plan calls it too)
  '../policy/forecast-policy',
]);

describe('irrigation/skip purity', () => {
  it('has source files', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  it.each(files)('%s imports only what the domain allows and reads no clock', (file) => {
    const src = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of src.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      const typeOnly = m[2] !== undefined;
      const spec = m[3] ?? '';
      const ok = /^\.\/[a-z-]+$/.test(spec) || VALUES.has(spec) || (typeOnly && TYPE_ONLY.has(spec));
      expect({ file, import: spec, typeOnly, ok }).toEqual({ file, import: spec, typeOnly, ok: true });
    }
    expect(src).not.toMatch(/Date\.now|new Date\(|process\.|require\(|Math\.random|node:/);
  });
});
