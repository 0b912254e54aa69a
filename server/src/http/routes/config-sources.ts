import { inUnitedStates } from '../../forecast/plan';
import { WEATHER_FIELDS } from '../../weather/fields';
import type { DomainRoutes, HttpDeps } from '../deps';
import { compareText } from '../../core/compare';

/**
 * GET /config/field_sources and /config/source_catalog: which source owns each
 * field and why, and the cloud weather kinds a user can add (highest honesty
 * first) with their live status.
 */

/** Kinds that can serve a forecast, and how strongly each fits a region. */
const FORECAST_KINDS: Record<string, (lat: number, lon: number) => number> = {
  nws: (lat, lon) => (inUnitedStates(lat, lon) ? 90 : 0),
  open_meteo: () => 60,
  openweather: () => 40,
};

export function configSourceRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/config/field_sources', async () => {
        const config = deps.config.current?.config;
        const { selections } = deps.weather.ownership();
        const health = new Map(deps.weather.sourceHealth().map((h) => [h.id, h]));
        const lat = config?.deployment.location.lat ?? deps.env.lat;
        const lon = config?.deployment.location.lon ?? deps.env.lon;
        const candidates = (config?.sources ?? [])
          .filter((s) => s.kind in FORECAST_KINDS)
          .map((s) => ({
            id: s.id,
            kind: s.kind,
            region_priority: lat === null || lon === null ? 0 : (FORECAST_KINDS[s.kind]?.(lat, lon) ?? 0),
          }))
          .sort((a, b) => b.region_priority - a.region_priority || compareText(a.id, b.id));
        return {
          user_fields: WEATHER_FIELDS.map((field) => {
            const owner = selections.get(field);
            return { field, source_id: owner?.sourceId ?? null, reason: owner?.reason ?? null };
          }),
          sources: (config?.sources ?? []).map((s) => ({
            id: s.id,
            kind: s.kind,
            priority: s.priority,
            enabled: s.enabled,
            provides: deps.sourceKinds.get(s.kind)?.provides ?? [],
            status: health.get(s.id)?.status ?? 'offline',
          })),
          overrides: config?.engine.overrides ?? {},
          field_source_chains: config?.engine.field_source_chains ?? {},
          forecast_candidates: candidates,
          forecast_provider: config?.engine.forecast_provider ?? null,
          region_label:
            lat === null || lon === null ? 'unknown' : inUnitedStates(lat, lon) ? 'United States' : 'Global',
        };
      });

      scope.get('/config/source_catalog', async () => {
        const config = deps.config.current?.config;
        const health = deps.weather.sourceHealth();
        const cloud = [...deps.sourceKinds.values()]
          .filter((k) => k.cloud)
          .sort(
            (a, b) =>
              (b.cloud?.honestyRank ?? 0) - (a.cloud?.honestyRank ?? 0) || compareText(a.kind, b.kind),
          );
        return {
          lat: config?.deployment.location.lat ?? deps.env.lat,
          lon: config?.deployment.location.lon ?? deps.env.lon,
          cloud_sources: cloud.map((k) => {
            const running = health.find((h) => h.kind === k.kind);
            return {
              kind: k.kind,
              label: k.label,
              honesty_rank: k.cloud?.honestyRank ?? 0,
              needs_api_key: k.cloud?.needsApiKey ?? false,
              configured: running !== undefined,
              status: running?.status ?? 'offline',
              note: running ? running.note : 'not configured',
            };
          }),
        };
      });
    },
  };
}
