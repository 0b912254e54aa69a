import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { unstressedSeason } from '../../server/src/season/score/unstressed';

/**
 * The two-day bench's floor (bench/lib/restriction-floor.mjs) compares like
 * with like: it starts where the scorer starts, and its ideal waterer refills
 * to field capacity of the root zone as the FAO-56 balance holds it (a
 * stressed crop draws Ks x the demand and leaves the rest in the soil), then
 * is scored in the scorer's unstressed bucket. Refilling the unstressed
 * bucket itself waters past field capacity; the floor keeps that as a lower
 * bound only.
 */

const FLOOR = pathToFileURL(path.join(__dirname, '../../bench/lib/restriction-floor.mjs')).href;

interface Floor {
  floor: number;
  floor_past_field_capacity: number;
  floor_one_session: number;
  peak_gap_demand_mm: number;
  taw_mm: number;
  raw_mm: number;
}

/** The bench helper is an ES module: run it in a child node and read its answer. */
function restrictionFloor(lines: object[], netPerSessionMm: number | null = null): Floor {
  const script =
    `import { restrictionFloor } from ${JSON.stringify(FLOOR)};\n` +
    `const input = JSON.parse(process.argv[1]);\n` +
    `process.stdout.write(JSON.stringify(restrictionFloor({ ...input, truth: new Map(), site: null, ` +
    `penmanMonteith: () => { throw new Error('no measured day'); } })));`;
  const input = { lines, weekdays: [2, 5], netPerSessionMm, skipDays: 0 };
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(input)], {
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as Floor;
}

/** Eleven days from Tuesday 2024-01-02 (Tuesdays and Fridays allowed), 5.2 mm demand a day, no rain. */
function days(startDepletionMm: number, irrigation: (i: number) => number = () => 0) {
  return Array.from({ length: 11 }, (_, i) => ({
    date: `2024-01-${String(2 + i).padStart(2, '0')}`,
    zone: 'lawn',
    taw_mm: 20,
    raw_mm: 10,
    kc: 1,
    sun_factor: 1,
    et0_mm: 5.2,
    rain_mm: 0,
    rain_credited_mm: 0,
    irrigation_net_mm: irrigation(i),
    start_depletion_mm: i === 0 ? startDepletionMm : null,
    start_depletion_range_mm: null,
  }));
}

describe('restriction floor', () => {
  it('refills to field capacity of the Ks-slowed root zone, so what a stressed crop left is not watered again', () => {
    const f = restrictionFloor(days(0));
    // Unstressed refill: stressed on Fri 15.6, Mon 15.6, Tue 20 (TAW), Fri 15.6 mm.
    expect(f.floor_past_field_capacity).toBe(4);
    // Field capacity bound: Thursday's draw slows (Ks 0.96), Friday's refill is 15.392 mm and
    // 0.208 mm stays in the unstressed bucket: Sunday starts at 10.608 > RAW + 0.5, and so on.
    expect(f.floor).toBe(6);
    expect(f.floor_one_session).toBe(6);
    expect(restrictionFloor(days(0), 10).floor_one_session).toBeGreaterThan(f.floor);
    expect(f.peak_gap_demand_mm).toBe(20.8);
    expect([f.taw_mm, f.raw_mm]).toEqual([20, 10]);
  });

  it("is what the scorer counts for a waterer refilling the ledger's deficit on every allowed day", () => {
    // The ledger's deficits on the allowed days (Fri 15.392, Tue 17.788 mm: Ks slows past RAW).
    const refills = new Map([
      [3, 15.392],
      [7, 15.392 + 0.4608 * 5.2],
    ]);
    const lines = days(0, (i) => refills.get(i) ?? 0);
    const scored = unstressedSeason(lines as never, new Map(), { latitude_deg: 40, elevation_m: 0 });
    const stress = scored.filter((d) => d.start_depletion_mm > 10.5).length;
    expect(stress).toBe(restrictionFloor(lines).floor);
  });

  it("starts where the scorer starts: the engine's depletion on the first scored day", () => {
    expect(restrictionFloor(days(15)).floor).toBeGreaterThan(restrictionFloor(days(0)).floor);
    expect(restrictionFloor(days(15)).floor_past_field_capacity).toBe(5);
  });
});
