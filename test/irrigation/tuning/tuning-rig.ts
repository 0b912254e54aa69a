import fs from 'node:fs';
import { zoneWaterCapacity } from '../../../server/src/agronomy/soil/water-balance';
import { toToml } from '../../../server/src/config/toml';
import { ManualClock } from '../../../server/src/core/clock';
import { storeEvidenceProviders } from '../../../server/src/irrigation/tuning/evidence-source';
import { TuningService, type TuningReport } from '../../../server/src/irrigation/tuning/tuning-service';
import type { ZoneEntry } from '../../../server/src/irrigation/tuning/zone-entry';
import type { Store } from '../../../server/src/store/store';
import { emptyDay } from '../../../server/src/weather-record/types';
import { makeService, tempDir, useBuiltinKinds } from '../../helpers/config-fixtures';
import { tempStore } from '../../store/temp-db';
import { addDays, localEpoch, TZ } from './recorded-history';

/**
 * The tuning service as main.ts wires it (the store's soil ledger and daily
 * weather record as providers) over a real store and a real ConfigService
 * (snapshots, atomic writes, rollback), on a fake clock at noon of TODAY.
 */

export const TODAY = '2025-07-20';
export const NOW_MS = localEpoch(TODAY, 12) * 1000;

export function tuningRigs(): (
  zones: Record<string, unknown>,
  engine?: Record<string, unknown>,
) => Promise<Rig> {
  useBuiltinKinds();
  const stores = tempStore();
  const dir = tempDir();
  return async (zones, engine = {}) => {
    const clock = new ManualClock(NOW_MS);
    const handle = makeService(dir(), {}, { clock });
    const doc = {
      schema_version: 2,
      deployment: { location: { lat: 40.7, lon: -74.0 }, timezone: TZ },
      engine,
      zones,
    };
    fs.writeFileSync(handle.configPath, toToml(doc as never));
    await handle.service.load();
    const store = stores.store();
    const tuning = new TuningService({
      store,
      clock,
      config: handle.service,
      timezone: () => TZ,
      rainThresholdIn: () => 0.25,
      restartReasons: () => [],
      providers: storeEvidenceProviders(store),
    });
    return { tuning, store, clock, config: handle.service, configPath: handle.configPath };
  };
}

export interface Rig {
  tuning: TuningService;
  store: Store;
  clock: ManualClock;
  config: Awaited<ReturnType<typeof makeService>>['service'];
  configPath: string;
}

export function entry(report: TuningReport, slug: string): ZoneEntry {
  const found = report.zones.find((z) => z.slug === slug);
  if (!found) throw new Error(`no zone ${slug}`);
  return found;
}

/** TAW and RAW the engine gives a zone (so stored rows match the current settings). */
export function bucketOf(zone: {
  species: string;
  soil_texture: string;
  root_depth_mm?: number;
  mad_pct_override?: number;
}): {
  taw: number;
  raw: number;
} {
  const c = zoneWaterCapacity(zone as never);
  if (!c) throw new Error('no bucket');
  return { taw: Math.round(c.taw_mm * 1000) / 1000, raw: Math.round(c.raw_mm * 1000) / 1000 };
}

/** One metered scheduled session: the scheduler's row and the observer's, both with the meter's flow. */
export function recordMetered(
  store: Store,
  zone: string,
  date: string,
  rateMmHr: number,
  areaSqft: number,
  seconds = 1800,
): void {
  const gpm = (rateMmHr * areaSqft * 0.09290304) / (60 * 3.785411784);
  const start = localEpoch(date, 4);
  for (const [source, at] of [
    ['ha_refresher', start],
    ['ha_refresher', start + 2],
  ] as const) {
    store.runs.insert({
      session_id: `sched-${date}-${zone}`,
      zone,
      start_epoch: at,
      duration_s: seconds - (at - start),
      skip_reason: null,
      source,
      status: 'completed',
      controller_id: 'os1',
      applied_mm: null,
      volume_gal: Math.round(((gpm * (seconds - (at - start))) / 60) * 10) / 10,
      note: null,
      cycle_index: null,
      cycle_count: null,
      evidence: 'metered',
      mean_flow_gpm: Math.round(gpm * 100) / 100,
    });
  }
}

/** Daily weather record rows for the `days` days before TODAY with the provider's own ET0 (source_native). */
export function recordWeather(
  store: Store,
  days: number,
  et0Mm: number,
  rainMm: Record<number, number> = {},
): void {
  const rows = [];
  for (let offset = -days; offset <= -1; offset += 1) {
    const d = emptyDay(addDays(TODAY, offset));
    d.et0_native_mm = et0Mm;
    d.sources.et0_native_mm = { source: 'model_archive', source_id: 'test model', coverage: 1 };
    d.rain_mm = rainMm[offset] ?? 0;
    d.sources.rain_mm = { source: 'station', source_id: 'yard', coverage: 1 };
    rows.push(d);
  }
  store.weatherDays.upsert(rows, 0);
}
