import fs from 'node:fs';
import path from 'node:path';

/** The engine folder is pure: no clock, no I/O, no luxon (local days go through localCalendar, core/tz). */
const dir = path.join(__dirname, '../../../server/src/irrigation/engine');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts'));

describe('irrigation/engine purity', () => {
  it.each(files)('%s reads no clock and does no I/O', (file) => {
    const src = fs.readFileSync(path.join(dir, file), 'utf8');
    expect(src).not.toMatch(/Date\.now|new Date\(|process\.|require\(|Math\.random|from 'node:|from 'luxon'/);
  });
});
