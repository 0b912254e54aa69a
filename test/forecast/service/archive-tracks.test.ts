import { ManualClock } from '../../../server/src/core/clock';
import type { ArchiveRow } from '../../../server/src/store/forecast-archive';
import type { Store } from '../../../server/src/store/store';
import {
  applied,
  configDocument,
  DAY,
  forecastHarness,
  HOUR,
  localEpoch,
  MODEL_HOURLY,
  MODELS_SAMPLE,
  OpenMeteoPeer,
} from './peers';

/**
 * What a refresh archives (every hour within 48 h of the fetch, per track,
 * with its provider and model) and the extra model tracks: fetched in the same
 * Open-Meteo request as `_<model>` keys, listed with identity, age, serving
 * state and last error, archived under their own name, and never part of the
 * merged snapshot that drives irrigation.
 */

const h = forecastHarness();
const T0 = localEpoch('2026-07-15T12:20:00');
const FETCH_HOUR = T0 - (T0 % HOUR);

function allRows(
  store: Store,
  track: string,
  from = FETCH_HOUR - 30 * DAY,
  to = FETCH_HOUR + 30 * DAY,
): ArchiveRow[] {
  return store.forecastArchive.page({ track, from, to, limit: 5000, cursor: null }).rows;
}

async function setup(options: { extraModels?: string[]; models?: Record<string, typeof MODEL_HOURLY> } = {}) {
  const clock = new ManualClock(T0 * 1000);
  const om = h.track(await new OpenMeteoPeer(clock, { models: options.models ?? {} }).start());
  const document = configDocument(
    om.baseUrl,
    null,
    options.extraModels ? { extraModels: options.extraModels } : {},
  );
  const config = applied(document);
  const service = h.service(clock, () => config);
  return { clock, om, service };
}

describe('forecast archive and extra model tracks', () => {
  it('archives leads 0..47 of the merged forecast with its provider and model, the values of the snapshot', async () => {
    const { service } = await setup();
    await service.refresh();
    const rows = allRows(h.store(), 'merged');
    expect(rows.map((r) => r.lead_h)).toEqual([...Array(48).keys()]);
    const hourly = new Map(service.snapshot().hourly.map((e) => [e.time_epoch, e]));
    for (const row of rows) {
      expect(row).toMatchObject({
        track: 'merged',
        provider: 'open_meteo',
        model: null,
        fetched_at: T0,
        target_epoch: FETCH_HOUR + row.lead_h * HOUR,
      });
      const hour = hourly.get(row.target_epoch);
      expect(row.precip_in).toBe(hour?.precip_in);
      expect(row.pop_pct).toBe(hour?.precip_probability);
      expect(Number.isInteger(row.pop_pct)).toBe(true);
    }
  });

  it('adds a fetch’s rows beside the earlier ones, each with its own fetched_at and lead', async () => {
    const { service, clock } = await setup();
    await service.refresh();
    clock.advance(HOUR * 1000);
    await service.refresh();
    const rows = allRows(h.store(), 'merged');
    expect(rows).toHaveLength(96);
    const second = rows.filter((r) => r.fetched_at === T0 + HOUR);
    expect(second.map((r) => r.lead_h).sort((a, b) => a - b)).toEqual([...Array(48).keys()]);
    expect(second[0]?.target_epoch).toBe(FETCH_HOUR + HOUR);
    // The same target hour, one lead apart.
    const target = FETCH_HOUR + 10 * HOUR;
    expect(
      rows
        .filter((r) => r.target_epoch === target)
        .map((r) => [r.lead_h, r.fetched_at])
        .sort(),
    ).toEqual(
      [
        [10, T0],
        [9, T0 + HOUR],
      ].sort(),
    );
  });

  it('lists extra tracks with identity, age, serving state and errors; archives them under their name; never changes the merged snapshot', async () => {
    // The merged forecast alone, for comparison.
    const plain = await setup();
    await plain.service.refresh();
    const mergedOnly = plain.service.snapshot();

    const { service, om, clock } = await setup({
      extraModels: ['gfs_seamless', 'icon_seamless'],
      models: { gfs_seamless: MODEL_HOURLY },
    });
    await service.refresh();
    expect(om.forecastRequests(true)).toHaveLength(1);
    expect(om.forecastRequests(true)[0]?.query.get('models')).toBe('gfs_seamless,icon_seamless');
    expect(service.snapshot()).toEqual(mergedOnly);

    let tracks = service.tracksInfo();
    expect(tracks.map((t) => t.track)).toEqual(['merged', 'gfs_seamless', 'icon_seamless']);
    expect(tracks[0]).toMatchObject({ drives_irrigation: true, model: null, serving: 'serving' });
    expect(tracks[1]).toMatchObject({
      track: 'gfs_seamless',
      provider: 'open_meteo',
      model: 'gfs_seamless',
      label: 'Open-Meteo gfs_seamless',
      fetched_at: T0,
      age_s: 0,
      serving: 'serving',
      is_backup: false,
      last_error: null,
      drives_irrigation: false,
    });
    expect(tracks[1]?.hours).toBeGreaterThan(200);
    // The answer had no icon_seamless series: listed, unavailable, with the reason.
    expect(tracks[2]).toMatchObject({
      track: 'icon_seamless',
      fetched_at: null,
      age_s: null,
      serving: 'unavailable',
      drives_irrigation: false,
    });
    expect(tracks[2]?.last_error).toMatch(/no data for this model/);
    expect(service.trackNames()).toEqual(['merged', 'gfs_seamless', 'icon_seamless']);

    // The model's values are its own, archived under its name.
    const gfs = service.trackHourly('gfs_seamless');
    const merged = service.trackHourly('merged');
    const probe = FETCH_HOUR + 3 * HOUR;
    const gfsHour = gfs?.hourly.find((e) => e.time_epoch === probe);
    const mergedHour = merged?.hourly.find((e) => e.time_epoch === probe);
    expect(gfsHour?.precip_in).toBe(0.05);
    expect(gfsHour?.temp_f).toBeCloseTo((mergedHour?.temp_f ?? 0) + 9, 5);
    expect(mergedHour?.precip_in).not.toBe(0.05);
    const gfsRows = allRows(h.store(), 'gfs_seamless');
    expect(gfsRows.map((r) => r.lead_h)).toEqual([...Array(48).keys()]);
    for (const row of gfsRows) {
      expect(row).toMatchObject({
        track: 'gfs_seamless',
        provider: 'open_meteo',
        model: 'gfs_seamless',
        fetched_at: T0,
        pop_pct: 90,
        precip_in: 0.05,
      });
    }
    expect(allRows(h.store(), 'icon_seamless')).toEqual([]);
    expect(allRows(h.store(), 'merged')).toHaveLength(48);

    // The models request fails next time: the track goes stale, keeps its forecast and ages.
    om.modelsMode = 'fail';
    clock.advance(1800 * 1000);
    await service.refresh();
    tracks = service.tracksInfo();
    expect(tracks[0]).toMatchObject({ fetched_at: T0 + 1800, serving: 'serving', last_error: null });
    expect(tracks[1]).toMatchObject({ fetched_at: T0, age_s: 1800, serving: 'stale' });
    expect(tracks[1]?.last_error).toMatch(/Open-Meteo: HTTP 503: Service temporarily unavailable/);
    expect(tracks[2]).toMatchObject({ serving: 'unavailable' });
    expect(service.snapshot().last_refresh_epoch).toBe(T0 + 1800);
    expect(service.snapshot().source_reachable).toBe(true);
    expect(allRows(h.store(), 'gfs_seamless')).toHaveLength(48);
    expect(allRows(h.store(), 'merged')).toHaveLength(96);
  });

  it('lists a configured model as a track before any fetch served it, and drops one no longer configured', async () => {
    const clock = new ManualClock(T0 * 1000);
    const om = h.track(
      await new OpenMeteoPeer(clock, { mode: 'fail', models: { gfs_seamless: MODEL_HOURLY } }).start(),
    );
    let current = applied(configDocument(om.baseUrl, null, { extraModels: ['gfs_seamless'] }));
    const service = h.service(clock, () => current);

    // The primary fails, so the models were never fetched: the track is known, and unavailable.
    await service.refresh();
    expect(service.trackNames()).toEqual(['merged', 'gfs_seamless']);
    expect(service.tracksInfo()[1]).toMatchObject({
      track: 'gfs_seamless',
      fetched_at: null,
      age_s: null,
      serving: 'unavailable',
      hours: 0,
      drives_irrigation: false,
    });
    expect(service.trackHourly('gfs_seamless')).toEqual({
      hourly: [],
      forecast: null,
      label: 'Open-Meteo gfs_seamless',
    });

    om.mode = 'ok';
    await service.refresh();
    expect(service.tracksInfo()[1]).toMatchObject({
      track: 'gfs_seamless',
      fetched_at: T0,
      serving: 'serving',
    });

    // The model is taken out of the config: its track goes with the next refresh, even a failing one.
    om.mode = 'fail';
    current = applied(configDocument(om.baseUrl, null));
    await service.refresh();
    expect(service.trackNames()).toEqual(['merged']);
    expect(service.trackHourly('gfs_seamless')).toBeUndefined();
  });

  it('does not keep serving a cached track whose model is no longer configured', async () => {
    const clock = new ManualClock(T0 * 1000);
    const om = h.track(
      await new OpenMeteoPeer(clock, {
        models: { gfs_seamless: MODEL_HOURLY, icon_seamless: MODEL_HOURLY },
      }).start(),
    );
    const both = applied(
      configDocument(om.baseUrl, null, { extraModels: ['gfs_seamless', 'icon_seamless'] }),
    );
    const first = h.service(clock, () => both);
    await first.refresh();
    await first.stop();
    expect(first.trackNames()).toEqual(['merged', 'gfs_seamless', 'icon_seamless']);

    // The next run has icon_seamless no longer configured, and Open-Meteo down.
    om.mode = 'fail';
    clock.advance(HOUR * 1000);
    const gfsOnly = applied(configDocument(om.baseUrl, null, { extraModels: ['gfs_seamless'] }));
    const second = h.service(clock, () => gfsOnly);
    await second.start();
    await second.refresh();
    expect(second.snapshot().last_refresh_epoch).toBe(T0);
    expect(second.trackNames()).toEqual(['merged', 'gfs_seamless']);
    expect(second.tracksInfo()[1]).toMatchObject({ track: 'gfs_seamless', fetched_at: T0, age_s: HOUR });
  });

  it('the peer’s models answer is keyed like the Open-Meteo models sample', async () => {
    const clock = new ManualClock(T0 * 1000);
    const om = h.track(
      await new OpenMeteoPeer(clock, {
        models: { gfs_seamless: MODEL_HOURLY, icon_seamless: MODEL_HOURLY },
      }).start(),
    );
    const res = await fetch(
      `${om.baseUrl}/v1/forecast?latitude=40.7&longitude=-74&hourly=temperature_2m,precipitation,et0_fao_evapotranspiration` +
        '&daily=temperature_2m_max&timezone=America%2FNew_York&timeformat=unixtime&past_days=1&forecast_days=1' +
        '&models=gfs_seamless,icon_seamless',
    );
    const body = (await res.json()) as { hourly_units: Record<string, string> };
    expect(body.hourly_units).toEqual(MODELS_SAMPLE.hourly_units);
  });
});
