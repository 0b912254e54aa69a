import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../server/src/config/schema';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import type { AcceptedRecommendation } from '../../server/src/season/accept-recommendations';
import { SeasonConfig } from '../../server/src/season/season-config';
import { runSeason, seasonConfig, type SeasonLine } from '../../server/src/season/season-runner';
import { readSeason, SEASONS } from './fixtures';

/**
 * `--accept-recommendations`: an owner who applies each tuning recommendation
 * the day it appears, through TuningService.apply (POST /config/zones/apply's
 * function) on the replay's config (season-config.ts).
 */

jest.setTimeout(300_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** MP rotators on bermuda in the Maricopa summer under a 60-minute cap: it binds every session. */
const capped = configSchema.parse({
  schema_version: 2,
  deployment: { location: { lat: 0, lon: 0 } },
  zones: {
    mp_lawn: {
      display_name: 'Bermuda (MP rotators, 60 min cap)',
      species: 'bermuda',
      soil_texture: 'sandy_loam',
      sprinkler_type: 'mp_rotator',
      sun_exposure: 'full',
      max_run_minutes: 60,
    },
  },
});

async function replay(accept: boolean): Promise<{ lines: SeasonLine[]; accepted: AcceptedRecommendation[] }> {
  const wth = readSeason('maricopa');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-season-accept-'));
  dirs.push(dir);
  const accepted: AcceptedRecommendation[] = [];
  const lines = await runSeason({
    days: wth.days,
    config: capped,
    lat: wth.latitude_deg,
    lon: SEASONS.maricopa.lon,
    elevation_m: wth.elevation_m,
    from: '2013-06-01',
    to: '2013-06-25',
    forecast: 'perfect',
    dbPath: path.join(dir, 'season.db'),
    acceptRecommendations: accept,
    onAccepted: (a) => accepted.push(a),
  });
  return { lines, accepted };
}

describe('accept recommendations', () => {
  it('applies the run-cap recommendation the day it derives, and later sessions run past the old cap', async () => {
    const { lines, accepted } = await replay(true);
    const cap = accepted.find((a) => a.field === 'max_run_minutes');
    expect(cap).toMatchObject({ zone: 'mp_lawn', old_value: 60 });
    expect(cap?.new_value as number).toBeGreaterThan(60);
    const after = lines.filter((l) => l.date > (cap?.date as string));
    expect(Math.max(...after.map((l) => l.planned_seconds))).toBeGreaterThan(3600);
    // The recommendation is applied once: after it, the cap no longer binds and nothing re-derives.
    expect(accepted.filter((a) => a.field === 'max_run_minutes')).toHaveLength(1);
  });

  it('without the flag nothing is applied and every session stays within the configured cap', async () => {
    const { lines, accepted } = await replay(false);
    expect(accepted).toEqual([]);
    expect(Math.max(...lines.map((l) => l.planned_seconds))).toBe(3600);
    expect(lines.some((l) => l.session_capped)).toBe(true);
  });
});

describe('SeasonConfig', () => {
  const wth = readSeason('maricopa');
  const base = seasonConfig({ config: capped, lat: wth.latitude_deg, lon: -111.97, elevation_m: 361 });

  it('applies a valid change with the next revision and announces config.changed', async () => {
    const settings = new SeasonConfig(base, new ManualClock(1_700_000_000_000));
    const bus = new EventBus();
    settings.bus = bus;
    const seen: number[] = [];
    bus.on('config.changed', (e) => seen.push(e.next.revision));
    const result = await settings.update((doc) => {
      (
        (doc.zones as Record<string, Record<string, unknown>>).mp_lawn as Record<string, unknown>
      ).max_run_minutes = 90;
      return doc;
    });
    expect(result.saved).toMatchObject({ revision: 2, applied_at_epoch: 1_700_000_000 });
    expect(settings.current.config.zones.mp_lawn?.max_run_minutes).toBe(90);
    expect(seen).toEqual([2]);
  });

  it('refuses a change that does not validate and keeps the config as it was', async () => {
    const settings = new SeasonConfig(base, new ManualClock(0));
    await expect(
      settings.update((doc) => {
        ((doc.zones as Record<string, Record<string, unknown>>).mp_lawn as Record<string, unknown>).species =
          'no_such_grass';
        return doc;
      }),
    ).rejects.toMatchObject({ code: 'config_invalid' });
    expect(settings.current.revision).toBe(1);
    expect(settings.current.config.zones.mp_lawn?.species).toBe('bermuda');
  });
});
