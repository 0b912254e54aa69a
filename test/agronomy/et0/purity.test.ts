import fs from 'node:fs';
import path from 'node:path';

/**
 * The ET0 domain is pure: it imports only its own folder (or core/clock.ts),
 * reads no clock and does no I/O.
 */
const dir = path.join(__dirname, '../../../server/src/agronomy/et0');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts'));

describe('agronomy/et0 purity', () => {
  it('has source files', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files)('%s imports nothing outside agronomy/ and core/clock, and reads no clock', (file) => {
    const src = fs.readFileSync(path.join(dir, file), 'utf8');
    const specifiers = [...src.matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1] ?? '');
    for (const s of specifiers) {
      const ok = s.startsWith('./') || s.startsWith('../') ? !/\.\.\/\.\.\/(?!core\/clock$)/.test(s) : false;
      expect({ file, import: s, ok }).toEqual({ file, import: s, ok: true });
    }
    expect(src).not.toMatch(/Date\.now|new Date\(|process\.|require\(|Math\.random/);
  });
});
