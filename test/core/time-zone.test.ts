import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IANAZone } from 'luxon';
import { TzifTimeZone, timeZone } from '../../server/src/core/tz/time-zone';
import { zoneFor } from '../../server/src/core/tz/zone';

/**
 * time-zone.ts answers offsets from the zone files (as zone.ts's luxon zone
 * does, which now wraps it), and only where no file answers falls back to
 * ICU through luxon, validity included.
 */

const SAMPLES = Array.from({ length: 400 }, (_, i) => Date.UTC(2026, 0, 1) + i * 22 * 3600 * 1000);

describe('timeZone', () => {
  it.each(['America/Denver', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago', 'UTC'])(
    '%s: read from its zone file, offsets equal to the luxon zone the service used',
    (name) => {
      const zone = timeZone(name);
      expect(zone).toBeInstanceOf(TzifTimeZone);
      expect(zone.isValid).toBe(true);
      expect(SAMPLES.map((t) => zone.offset(t))).toEqual(SAMPLES.map((t) => zoneFor(name).offset(t)));
    },
  );

  it('is cached per name', () => {
    expect(timeZone('America/Denver')).toBe(timeZone('America/Denver'));
  });

  it.each(['Mars/Olympus_Mons', '../etc/passwd', 'America', ''])('%j is not a valid zone', (name) => {
    expect(timeZone(name).isValid).toBe(false);
    expect(zoneFor(name).isValid).toBe(false);
    expect(timeZone(name).offset(SAMPLES[0] as number)).toBeNaN();
  });

  it('without zone files, ICU answers (through luxon), and still knows what is not a zone', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-zoneinfo-'));
    const previous = process.env.RAINCHECK_ZONEINFO_DIR;
    process.env.RAINCHECK_ZONEINFO_DIR = empty;
    try {
      jest.isolateModules(() => {
        type Module = typeof import('../../server/src/core/tz/time-zone');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const isolated = require('../../server/src/core/tz/time-zone') as Module;
        const denver = isolated.timeZone('America/Denver');
        expect(denver).not.toBeInstanceOf(isolated.TzifTimeZone);
        expect(denver.isValid).toBe(true);
        const icu = IANAZone.create('America/Denver');
        expect(SAMPLES.map((t) => denver.offset(t))).toEqual(SAMPLES.map((t) => icu.offset(t)));
        expect(isolated.timeZone('Mars/Olympus_Mons').isValid).toBe(false);
      });
    } finally {
      if (previous === undefined) delete process.env.RAINCHECK_ZONEINFO_DIR;
      else process.env.RAINCHECK_ZONEINFO_DIR = previous;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
