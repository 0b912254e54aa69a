import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ManualClock } from '../../../server/src/core/clock';
import { FORECAST_CACHE_FILE } from '../../../server/src/main';
import { bootService, makeDataDir, serviceTracker } from '../../helpers/service';
import { refusedBaseUrl } from '../../helpers/loopback-peer';
import { configDocument, configToml, localEpoch, MODEL_HOURLY, startPeers, until } from './peers';

/**
 * The private forecast cache (spec 9.4, schema 3) across real boots of the
 * service: a cache of another schema, or one that is not a cached forecast,
 * is deleted at boot and nothing of it is served; a schema 3 cache written by
 * the previous run is served before the first refresh with its own
 * fetched_at, and kept (with its age) when that refresh fails.
 */

const services = serviceTracker();
const T0 = localEpoch('2026-07-15T12:20:00');
const HOUR = 3600;

function cachedForecast(fetchedAt: number) {
  return {
    provider: 'open_meteo',
    model: null,
    fetched_at: fetchedAt,
    hourly: [
      {
        time_epoch: fetchedAt - (fetchedAt % HOUR),
        temp_f: 71.5,
        precip_in: 0.02,
        precip_probability: 40,
        wind_mph: 5,
        humidity_pct: 60,
        et0_in: 0.01,
        et0_reported: true,
      },
    ],
    daily: [],
  };
}

function readCache(dataDir: string): Record<string, unknown> | null {
  const file = path.join(dataDir, FORECAST_CACHE_FILE);
  if (!fs.existsSync(file)) return null;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('forecast cache across boots', () => {
  it('deletes a schema 2 cache at boot and serves nothing of it', async () => {
    const clock = new ManualClock(T0 * 1000);
    const { om, nws } = await startPeers(clock, { openMeteo: { mode: 'hang' }, nws: { mode: 'hang' } });
    try {
      const dataDir = makeDataDir();
      const cacheFile = path.join(dataDir, FORECAST_CACHE_FILE);
      fs.writeFileSync(
        cacheFile,
        JSON.stringify({
          schema: 2,
          merged: { forecast: cachedForecast(T0 - 600), label: 'Open-Meteo forecast', isBackup: false },
          tracks: {},
        }),
      );
      const { service } = await services.boot({
        dataDir,
        configToml: configToml(configDocument(om.baseUrl, nws.baseUrl, { timeoutS: 10 })),
        serviceOptions: { clock },
      });
      // The providers have not answered (they never will): whatever is served came from the cache.
      expect(fs.existsSync(cacheFile)).toBe(false);
      const snap = await request(service.server).get('/api/v1/forecast/snapshot').expect(200);
      expect(snap.body).toMatchObject({ last_refresh_epoch: null, daily: [], past_daily: [], hourly: [] });
      const tracks = await request(service.server).get('/api/v1/forecast/tracks').expect(200);
      expect(tracks.body).toEqual([
        expect.objectContaining({ track: 'merged', fetched_at: null, age_s: null, serving: 'unavailable' }),
      ]);
      expect(om.forecastRequests()).toHaveLength(1);
    } finally {
      await om.peer.close();
      await nws.peer.close();
    }
  });

  it.each([
    ['text that is not JSON', 'forecast cache v3\n'],
    ['a truncated file', '{"schema":3,"merged":{"forecast":{"provider":"open_me'],
    ['JSON null', 'null'],
    ['schema 3 with tracks that are not an object', '{"schema":3,"merged":null,"tracks":5}'],
    ['schema 3 whose forecast is not a forecast', '{"schema":3,"merged":{"forecast":"x"},"tracks":{}}'],
    [
      'schema 3 with a track without hours',
      JSON.stringify({
        schema: 3,
        merged: null,
        tracks: {
          gfs_seamless: { forecast: { provider: 'open_meteo', fetched_at: T0 }, label: 'x', isBackup: false },
        },
      }),
    ],
  ])('discards %s at boot', async (_name, content) => {
    const clock = new ManualClock(T0 * 1000);
    const dataDir = makeDataDir();
    fs.writeFileSync(path.join(dataDir, FORECAST_CACHE_FILE), content);
    const refused = await refusedBaseUrl();
    const { service } = await services.boot({
      dataDir,
      configToml: configToml(configDocument(refused, refused, { timeoutS: 5 })),
      serviceOptions: { clock },
    });
    const snap = await request(service.server).get('/api/v1/forecast/snapshot').expect(200);
    expect(snap.body).toMatchObject({ last_refresh_epoch: null, daily: [], hourly: [] });
    const tracks = await request(service.server).get('/api/v1/forecast/tracks').expect(200);
    expect(tracks.body.map((t: { track: string }) => t.track)).toEqual(['merged']);
    // The failed first refresh writes a fresh schema 3 cache with nothing in it; the garbage is gone.
    const rewritten = await until(() => readCache(dataDir));
    expect(rewritten).toEqual({ schema: 3, merged: null, tracks: {} });
  });

  it('serves the previous run’s schema 3 cache before the first refresh, with its fetched_at, and keeps it when that refresh fails', async () => {
    const clock = new ManualClock(T0 * 1000);
    const { om, nws } = await startPeers(clock, {
      openMeteo: { models: { gfs_seamless: MODEL_HOURLY } },
    });
    try {
      const dataDir = makeDataDir();
      const toml = configToml(
        configDocument(om.baseUrl, nws.baseUrl, { timeoutS: 10, extraModels: ['gfs_seamless'] }),
      );

      // The previous run: one good refresh, then a graceful stop.
      const first = await bootService({ dataDir, configToml: toml, serviceOptions: { clock } });
      let before: { body: Record<string, unknown> };
      try {
        await until(async () => {
          const res = await request(first.service.server).get('/api/v1/forecast/tracks');
          return res.body.every((t: { fetched_at: number | null }) => t.fetched_at === T0) &&
            res.body.length === 2
            ? res.body
            : null;
        });
        before = await request(first.service.server).get('/api/v1/forecast/snapshot').expect(200);
      } finally {
        await first.service.stop();
      }
      const cache = readCache(dataDir) as {
        schema: number;
        merged: { forecast: { fetched_at: number } };
        tracks: Record<string, { forecast: { model: string } }>;
      };
      expect(cache.schema).toBe(3);
      expect(cache.merged.forecast.fetched_at).toBe(T0);
      expect(cache.tracks.gfs_seamless?.forecast.model).toBe('gfs_seamless');

      // Two hours later the providers do not answer.
      om.mode = 'hang';
      nws.mode = 'hang';
      clock.set((T0 + 2 * HOUR) * 1000);
      const { service } = await services.boot({ dataDir, serviceOptions: { clock } });
      const snap = await request(service.server).get('/api/v1/forecast/snapshot').expect(200);
      expect(snap.body).toMatchObject({
        last_refresh_epoch: T0,
        source_label: 'Open-Meteo forecast',
        source_is_backup: false,
      });
      expect(snap.body.daily).toEqual(before.body.daily);
      expect(snap.body.hourly).toEqual(before.body.hourly);
      const tracks = await request(service.server).get('/api/v1/forecast/tracks').expect(200);
      expect(tracks.body).toEqual([
        expect.objectContaining({ track: 'merged', fetched_at: T0, age_s: 2 * HOUR, model: null }),
        expect.objectContaining({
          track: 'gfs_seamless',
          model: 'gfs_seamless',
          fetched_at: T0,
          age_s: 2 * HOUR,
        }),
      ]);
      const window = await request(service.server)
        .get('/api/v1/forecast/window')
        .query({ from: T0 - (T0 % HOUR), to: T0 - (T0 % HOUR) + 5 * HOUR })
        .expect(200);
      expect(window.body).toMatchObject({ fetched_at: T0, age_s: 2 * HOUR, hours: 6, complete: true });

      // The first refresh fails (the peers go away): the cached forecast stays, marked unreachable.
      await om.peer.close();
      await nws.peer.close();
      const failed = await until(async () => {
        const res = await request(service.server).get('/api/v1/forecast/snapshot');
        return res.body.source_reachable === false ? res.body : null;
      });
      expect(failed.last_refresh_epoch).toBe(T0);
      expect(failed.daily).toEqual(before.body.daily);
      const after = await request(service.server).get('/api/v1/forecast/tracks').expect(200);
      expect(after.body[0]).toMatchObject({
        track: 'merged',
        fetched_at: T0,
        age_s: 2 * HOUR,
        serving: 'stale',
      });
      expect(after.body[0].last_error).toEqual(expect.any(String));
      // Two hours without a good fetch is past the 30-minute hard-offline window.
      const health = await request(service.server).get('/api/v1/health').expect(200);
      expect(health.body.subsystems.forecast).toBe('degraded');
    } finally {
      await om.peer.close();
      await nws.peer.close();
    }
  });
});
