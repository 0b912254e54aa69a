import type { AppliedConfig } from '../../config/config-types';
import type { IrrigationService } from '../../irrigation/irrigation-service';
import type { WeatherService } from '../../weather/weather-service';
import type { CatalogView } from './descriptor';

/** Builds the catalog's view from the live services (null before a config exists). */
export interface CatalogViewDeps {
  config: () => AppliedConfig | null;
  irrigation: Pick<IrrigationService, 'snapshot' | 'latestOutput' | 'controlsState'>;
  weather: Pick<WeatherService, 'currentWeather'>;
}

export function catalogView(deps: CatalogViewDeps): CatalogView | null {
  const applied = deps.config();
  if (!applied) return null;
  return {
    config: applied.config,
    irrigation: deps.irrigation.snapshot(),
    verdict: deps.irrigation.latestOutput()?.verdict ?? null,
    reason: deps.irrigation.latestOutput()?.verdictReason.reason ?? null,
    weather: deps.weather.currentWeather(),
    controls: deps.irrigation.controlsState(),
  };
}
