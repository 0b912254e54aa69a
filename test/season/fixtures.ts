import fs from 'node:fs';
import path from 'node:path';
import { configSchema, type RaincheckConfig } from '../../server/src/config/schema';
import { parseWth, type WthFile } from '../../server/src/season/wth';

/** The two shared station years (copied from shared/datasets; see test/fixtures/seasons/README.md). */
export const SEASONS = {
  greeley: {
    file: 'greeley-co-2022.wth',
    lon: -104.64,
    from: '2022-05-15',
    to: '2022-10-02',
  },
  maricopa: {
    file: 'maricopa-az-2013.wth',
    lon: -111.97,
    from: '2013-05-01',
    to: '2013-09-18',
  },
} as const;

export type SeasonName = keyof typeof SEASONS;

export function readSeason(name: SeasonName): WthFile {
  const file = path.join(__dirname, '..', 'fixtures', 'seasons', SEASONS[name].file);
  return parseWth(fs.readFileSync(file, 'utf8'));
}

/**
 * The replay's four zones: tall fescue on loam with rotors, bermuda on sand
 * with sprays, shrubs on clay loam with drip, and Kentucky bluegrass on a
 * 10 % silt-loam slope under MP rotators in partial sun.
 */
export function seasonZonesConfig(): RaincheckConfig {
  return configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 0, lon: 0 } },
    zones: {
      fescue: {
        display_name: 'Tall fescue (rotors, loam)',
        species: 'tall_fescue',
        soil_texture: 'loam',
        sprinkler_type: 'rotor',
        sun_exposure: 'full',
        max_run_minutes: 120,
      },
      bermuda: {
        display_name: 'Bermuda (sprays, sand)',
        species: 'bermuda',
        soil_texture: 'sand',
        sprinkler_type: 'spray',
        sun_exposure: 'full',
      },
      shrubs: {
        display_name: 'Shrubs (drip, clay loam)',
        species: 'ornamental_shrubs',
        soil_texture: 'clay_loam',
        sprinkler_type: 'drip',
        sun_exposure: 'full',
        max_run_minutes: 180,
      },
      bluegrass: {
        display_name: 'Bluegrass (MP rotators, silt loam slope)',
        species: 'kentucky_bluegrass',
        soil_texture: 'silt_loam',
        sprinkler_type: 'mp_rotator',
        sun_exposure: 'partial',
        slope_pct: 10,
        max_run_minutes: 120,
      },
    },
  });
}
