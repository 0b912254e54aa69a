import type { DomainRoutes, HttpDeps } from '../deps';
import { queryNumber } from '../query';
import { epochSeconds } from '../../core/clock';
import { MERGED_SOURCE_ID } from '../../weather/weather-service';

/**
 * GET /weather/history and /weather/readings, backed by the readings table;
 * mounted only when the database is open.
 */
export function weatherRoutes(deps: HttpDeps): DomainRoutes {
  const store = deps.store;
  if (!store) return {};
  return {
    shared: (scope) => {
      /** The merged headline fields per minute, oldest first: `{hours, rows: [{epoch, <field>: value|null}]}`. */
      scope.get('/weather/history', async (request) => {
        const hours = optionalNumber(request, 'hours', 24, 1, 24 * 30);
        const rows = store.readings
          .listRecent(epochSeconds(deps.clock), hours)
          .filter((r) => r.source_id === MERGED_SOURCE_ID);
        const byEpoch = new Map<number, Record<string, number>>();
        for (const row of rows) byEpoch.set(row.epoch, { ...byEpoch.get(row.epoch), [row.field]: row.value });
        const fields = [...new Set(rows.map((r) => r.field))].sort();
        return {
          hours,
          fields,
          rows: [...byEpoch.entries()].map(([epoch, values]) => ({
            epoch,
            ...Object.fromEntries(fields.map((f) => [f, values[f] ?? null])),
          })),
        };
      });

      /** Raw per-source readings (at most one per field per minute), oldest first. */
      scope.get('/weather/readings', async (request) => {
        const hours = optionalNumber(request, 'hours', 1, 1, 24 * 7);
        const rows = store.readings
          .listRecent(epochSeconds(deps.clock), hours)
          .filter((r) => r.source_id !== MERGED_SOURCE_ID);
        return { hours, readings: rows };
      });
    },
  };
}

function optionalNumber(
  request: Parameters<typeof queryNumber>[0],
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = (request.query as Record<string, unknown>)[name];
  return raw === undefined ? fallback : Math.floor(queryNumber(request, name, min, max));
}
