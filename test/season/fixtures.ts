import fs from 'node:fs';
import path from 'node:path';
import { configSchema, type RaincheckConfig } from '../../server/src/config/schema';
import { parseToml } from '../../server/src/config/toml';
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
 * The replay's four zones (test/fixtures/seasons/four-zones.toml): tall fescue
 * on loam with rotors, bermuda on sand with sprays, shrubs on clay loam with
 * drip, and Kentucky bluegrass on a 10 % silt-loam slope under MP rotators in
 * partial sun.
 */
export function seasonZonesConfig(): RaincheckConfig {
  const file = path.join(__dirname, '..', 'fixtures', 'seasons', 'four-zones.toml');
  return configSchema.parse(parseToml(fs.readFileSync(file, 'utf8')));
}
