import type { AppliedConfig } from '../../../server/src/config/config-types';
import type { RaincheckConfig } from '../../../server/src/config/schema';
import { EventBus } from '../../../server/src/core/bus';
import { silentLogger } from '../../../server/src/core/logger';
import { SoilLedgerService } from '../../../server/src/irrigation/soil/soil-ledger-service';
import type { Store } from '../../../server/src/store/store';
import type { DailyWeather } from '../../../server/src/store/weather-days';
import { emptyDay } from '../../../server/src/weather-record/types';
import { WeatherRecordService } from '../../../server/src/weather-record/weather-record-service';
import { dateAt, demo, forecast, NOW } from '../engine/fixtures';

/**
 * The scripted season's yard (ledger-season.test.ts has the hand arithmetic):
 * one zone "plot" (other, loam, 200 mm roots, MAD 50 %: TAW 26 mm, RAW 13 mm;
 * 20 mm/h), ET0 5.08 mm every day, model rain on -30, -9 and -3 and a gauge
 * total on -21; and the weather record and soil ledger services over a store.
 */

export const RAIN_MM: Record<number, number> = { [-30]: 76.2, [-9]: 50.8, [-3]: 50.8 };

export function recordDay(offset: number): DailyWeather {
  const d = emptyDay(dateAt(offset));
  d.rain_mm = RAIN_MM[offset] ?? 0;
  d.sources.rain_mm = { source: 'model_archive', source_id: 'test model', coverage: 1 };
  if (offset === -21) {
    d.rain_mm = 12.7;
    d.sources.rain_mm = { source: 'station', source_id: 'yard_station', coverage: 1 };
  }
  d.et0_native_mm = 5.08;
  d.sources.et0_native_mm = { source: 'model_archive', source_id: 'test model', coverage: 1 };
  return d;
}

/** The plot's config; `zone` adds fields to the plot zone (an `area_sqft`, a meter). */
export function plotConfig(zone: Record<string, unknown> = {}): RaincheckConfig {
  return demo((raw) => {
    raw['zones'] = {
      plot: {
        display_name: 'Plot',
        species: 'other',
        soil_texture: 'loam',
        root_depth_mm: 200,
        mad_pct_override: 50,
        sun_exposure: 'full',
        precip_rate_mm_hr: 20,
        rain_credit_cap_in: 5,
        max_run_minutes: 120,
        ...zone,
      },
    };
    (raw['engine'] as Record<string, unknown>)['et0_method'] = 'source_native';
  });
}

export function appliedOf(config: RaincheckConfig): AppliedConfig {
  return { config, document: {}, appliedAtEpoch: 0, revision: 1 };
}

export function plotServices(store: Store, applied: AppliedConfig) {
  const bus = new EventBus();
  const record = new WeatherRecordService({
    bus,
    clock: { nowMs: () => NOW * 1000 },
    logger: silentLogger(),
    config: () => applied,
    store,
    forecast: { snapshot: () => forecast({ past_daily: [] }), history: async () => null },
    modelledKinds: new Set(),
    stationDays: () => [],
  });
  const ledger = new SoilLedgerService({ bus, logger: silentLogger(), config: () => applied, store, record });
  // start() only subscribes to the events that mark evidence as changed.
  void ledger.start();
  return { store, bus, ledger };
}

/** The record's 30 days before today. */
export function seedWeather(store: Store): void {
  store.weatherDays.upsert(
    Array.from({ length: 30 }, (_, i) => recordDay(i - 30)),
    NOW - 86400 * 31,
  );
}
