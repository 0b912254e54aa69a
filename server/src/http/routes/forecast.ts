import { epochSeconds } from '../../core/clock';
import type { DomainRoutes, HttpDeps } from '../deps';
import { sendEncoded } from '../encoded-json';
import { subscribe } from './stream';

/**
 * /forecast/*: the merged snapshot and its stream, the learned bias, the model
 * tracks, the hour window of a track and the forecast archive (spec 4.3). The
 * 400 codes of window and archive are listed in forecast/archive-query.ts;
 * that parser and the window builder load on the first request that needs them.
 */
export function forecastRoutes(deps: HttpDeps): DomainRoutes {
  const forecast = deps.forecast;
  const store = deps.store;
  return {
    shared: (scope) => {
      scope.get('/forecast/snapshot', (request, reply) => sendEncoded(request, reply, forecast.snapshot()));
      scope.get('/forecast/stream', (request, reply) => subscribe(deps, 'forecast', request, reply));
      scope.get('/forecast/bias', async () => forecast.bias());
      scope.get('/forecast/tracks', async () => forecast.tracksInfo());

      scope.get('/forecast/window', async (request) => {
        const { parseWindowQuery, trackUnknown } = loadQueries();
        const { buildForecastWindow } = loadWindow();
        const { track, from, to } = parseWindowQuery(request.query as Record<string, unknown>);
        const series = forecast.trackHourly(track);
        if (!series) throw trackUnknown(track);
        return buildForecastWindow({
          track,
          model: series.forecast?.model ?? null,
          providerLabel: series.label,
          fetchedAt: series.forecast?.fetched_at ?? null,
          nowEpoch: epochSeconds(deps.clock),
          hourly: series.hourly,
          from,
          to,
        });
      });

      if (!store) return;
      scope.get('/forecast/archive', async (request) => {
        const { parseArchiveQuery, trackUnknown, withArchiveCursor } = loadQueries();
        const query = parseArchiveQuery(request.query as Record<string, unknown>);
        if (!forecast.trackNames().includes(query.track)) throw trackUnknown(query.track);
        return withArchiveCursor(() => store.forecastArchive.page(query));
      });
    },
  };
}

/* eslint-disable @typescript-eslint/no-require-imports */
function loadQueries(): typeof import('../../forecast/archive-query') {
  return require('../../forecast/archive-query') as typeof import('../../forecast/archive-query');
}

function loadWindow(): typeof import('../../forecast/window') {
  return require('../../forecast/window') as typeof import('../../forecast/window');
}
/* eslint-enable @typescript-eslint/no-require-imports */
