import { FORECAST_DAYS } from '../../../server/src/forecast/forecast-service';
import { ManualClock } from '../../../server/src/core/clock';
import { applied, configDocument, forecastHarness, HOUR, localEpoch, NwsPeer, OpenMeteoPeer } from './peers';

/**
 * ForecastService with the real provider factory (createForecastFactory, as
 * main.ts builds it) against loopback Open-Meteo and NWS peers: which provider
 * serves the merged forecast while the primary answers, times out and comes
 * back, and what is served (and how healthy it is) when every provider fails.
 */

const h = forecastHarness();
/** 2026-07-15 12:20 in New York. */
const T0 = localEpoch('2026-07-15T12:20:00');
const OPEN_METEO_LABEL = 'Open-Meteo forecast';
const NWS_LABEL = 'US National Weather Service forecast';

async function setup(timeoutS = 1) {
  const clock = new ManualClock(T0 * 1000);
  const om = h.track(await new OpenMeteoPeer(clock).start());
  const nws = h.track(await new NwsPeer(clock).start());
  const config = applied(configDocument(om.baseUrl, nws.baseUrl, { timeoutS }));
  const service = h.service(clock, () => config);
  const advance = (seconds: number) => clock.advance(seconds * 1000);
  return { clock, om, nws, service, advance };
}

describe('ForecastService: primary, backup, last good forecast', () => {
  it('serves Open-Meteo while it answers, NWS while it times out, Open-Meteo again when it is back', async () => {
    const { om, nws, service, advance } = await setup();

    await service.refresh();
    let snap = service.snapshot();
    expect(snap).toMatchObject({
      last_refresh_epoch: T0,
      source_label: OPEN_METEO_LABEL,
      source_is_backup: false,
      source_reachable: true,
      timezone: 'America/New_York',
    });
    expect(snap.daily[0]?.date_local).toBe('2026-07-15');
    expect(snap.daily).toHaveLength(FORECAST_DAYS);
    expect(snap.past_daily).toHaveLength(3);
    expect(service.tracksInfo()[0]).toMatchObject({
      track: 'merged',
      provider: 'open_meteo',
      is_backup: false,
      serving: 'serving',
      last_error: null,
    });
    expect(service.health()).toEqual({ status: 'ok', note: null });
    expect(om.forecastRequests()).toHaveLength(1);
    expect(nws.hourlyRequests()).toHaveLength(0);

    // The primary never answers: after its timeout_s (1 s, not the default 20 s) the backup serves.
    om.mode = 'hang';
    advance(1800);
    const started = Date.now();
    await service.refresh();
    expect(Date.now() - started).toBeLessThan(8000);
    snap = service.snapshot();
    expect(snap).toMatchObject({
      last_refresh_epoch: T0 + 1800,
      source_label: NWS_LABEL,
      source_is_backup: true,
      source_reachable: true,
    });
    expect(om.forecastRequests()).toHaveLength(2);
    expect(nws.hourlyRequests()).toHaveLength(1);
    expect(service.tracksInfo()[0]).toMatchObject({ provider: 'nws', is_backup: true, serving: 'serving' });
    expect(service.health().status).toBe('ok');
    // NWS's hourly product has no amounts and no ET0: null, never a dry 0.
    expect(snap.hourly.length).toBeGreaterThan(100);
    for (const hour of snap.hourly) {
      expect(hour.precip_in).toBeNull();
      expect(hour.et0_in).toBeNull();
      expect(hour.et0_reported).toBe(false);
      expect(hour.temp_f).toEqual(expect.any(Number));
    }
    for (const day of snap.daily) expect(day.precip_sum_in).toBeNull();

    // A second backup refresh reuses the provider: the point lookup is not repeated.
    advance(1800);
    await service.refresh();
    expect(service.snapshot().source_is_backup).toBe(true);
    expect(nws.hourlyRequests()).toHaveLength(2);
    expect(nws.pointRequests()).toHaveLength(1);

    // The primary is back.
    om.mode = 'ok';
    advance(1800);
    await service.refresh();
    snap = service.snapshot();
    expect(snap).toMatchObject({
      last_refresh_epoch: T0 + 3 * 1800,
      source_label: OPEN_METEO_LABEL,
      source_is_backup: false,
      source_reachable: true,
    });
    expect(service.tracksInfo()[0]).toMatchObject({ provider: 'open_meteo', is_backup: false });
  });

  it('keeps the last good forecast when every provider fails: its fetched_at, a growing age, ok for 30 minutes, then degraded', async () => {
    const { om, nws, service, advance } = await setup();
    await service.refresh();
    const good = service.snapshot();
    expect(good.source_reachable).toBe(true);

    om.mode = 'fail';
    nws.mode = 'fail';
    advance(600);
    await service.refresh();
    let snap = service.snapshot();
    expect(snap.last_refresh_epoch).toBe(T0);
    expect(snap.source_reachable).toBe(false);
    expect(snap.source_label).toBe(OPEN_METEO_LABEL);
    expect(snap.source_is_backup).toBe(false);
    expect(snap.daily).toEqual(good.daily);
    expect(snap.hourly).toEqual(good.hourly);
    let merged = service.tracksInfo()[0];
    expect(merged).toMatchObject({ fetched_at: T0, age_s: 600, serving: 'stale' });
    expect(merged?.last_error).toMatch(/Open-Meteo: HTTP 503/);
    expect(merged?.last_error).toMatch(/NWS.*HTTP 500/);
    expect(service.health()).toMatchObject({ status: 'ok', note: expect.stringMatching(/HTTP 503/) });

    // The primary hanging counts the same: its timeout is the failure.
    om.mode = 'hang';
    advance(15 * 60);
    await service.refresh();
    merged = service.tracksInfo()[0];
    expect(merged).toMatchObject({ fetched_at: T0, age_s: 600 + 900, serving: 'stale' });
    expect(merged?.last_error).toMatch(/Open-Meteo: no answer within 1 s/);
    expect(service.snapshot().last_refresh_epoch).toBe(T0);

    // Health is judged from the last good fetch: ok up to the 30-minute hard-offline window, degraded after.
    advance(1800 - 1500);
    expect(service.tracksInfo()[0]?.age_s).toBe(1800);
    expect(service.health().status).toBe('ok');
    advance(1);
    expect(service.health().status).toBe('degraded');
    expect(service.health().note).toMatch(/no answer within 1 s/);
    advance(2 * HOUR);
    expect(service.health().status).toBe('degraded');
    expect(service.tracksInfo()[0]?.age_s).toBe(1801 + 2 * HOUR);
    snap = service.snapshot();
    expect(snap.last_refresh_epoch).toBe(T0);
    expect(snap.source_reachable).toBe(false);

    // A provider answering again clears it all.
    om.mode = 'ok';
    await service.refresh();
    snap = service.snapshot();
    expect(snap.source_reachable).toBe(true);
    expect(snap.last_refresh_epoch).toBe(T0 + 1801 + 2 * HOUR);
    expect(service.health()).toEqual({ status: 'ok', note: null });
  });

  it('reports starting, then degraded, when no forecast was ever fetched', async () => {
    const { om, nws, service, advance } = await setup();
    om.mode = 'fail';
    nws.mode = 'fail';
    await service.refresh();
    const snap = service.snapshot();
    expect(snap).toMatchObject({ last_refresh_epoch: null, source_reachable: false, daily: [], hourly: [] });
    expect(service.health().status).toBe('starting');
    advance(1801);
    expect(service.health().status).toBe('degraded');
  });
});
