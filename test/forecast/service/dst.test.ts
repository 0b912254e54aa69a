import { ManualClock } from '../../../server/src/core/clock';
import type { DailyEntry, ForecastSnapshot } from '../../../server/src/forecast/types';
import {
  applied,
  configDocument,
  forecastHarness,
  HOUR,
  local,
  localEpoch,
  NwsPeer,
  OpenMeteoPeer,
} from './peers';

/**
 * DST days in America/New_York through the service: daily entries are local
 * days (time_epoch = local midnight), the snapshot splits past_daily from
 * daily at local midnight (not UTC midnight), and the hourly series starts at
 * the local day's start, with 23 hours on 2026-03-08 and 25 on 2026-11-01.
 */

const h = forecastHarness();

/** Local midnights, written as UTC so the expectations do not depend on the code's zone handling. */
const MAR_07 = Date.UTC(2026, 2, 7, 5) / 1000; // EST, -05:00
const MAR_08 = Date.UTC(2026, 2, 8, 5) / 1000; // EST: DST starts at 02:00 local
const MAR_09 = Date.UTC(2026, 2, 9, 4) / 1000; // EDT, -04:00
const OCT_31 = Date.UTC(2026, 9, 31, 4) / 1000; // EDT
const NOV_01 = Date.UTC(2026, 10, 1, 4) / 1000; // EDT: DST ends at 02:00 local
const NOV_02 = Date.UTC(2026, 10, 2, 5) / 1000; // EST

function expectLocalDays(days: DailyEntry[]): void {
  for (const d of days) {
    expect(local(d.time_epoch).time).toBe('00:00');
    expect(local(d.time_epoch).date).toBe(d.date_local);
  }
  for (let i = 1; i < days.length; i += 1) {
    expect(local((days[i] as DailyEntry).time_epoch - HOUR * 12).date).toBe(
      (days[i - 1] as DailyEntry).date_local,
    );
  }
}

function hoursOn(snap: ForecastSnapshot, date: string): number[] {
  return snap.hourly.filter((e) => local(e.time_epoch).date === date).map((e) => e.time_epoch);
}

async function openMeteoService(clock: ManualClock) {
  const om = h.track(await new OpenMeteoPeer(clock).start());
  const config = applied(configDocument(om.baseUrl, null));
  const service = h.service(clock, () => config);
  await service.refresh();
  return service;
}

describe('ForecastService on DST days (America/New_York)', () => {
  it('spring forward, 2026-03-08: local days, the split at local midnight, a 23-hour day', async () => {
    // Fetched late on the 7th (local), when UTC is already on the 8th.
    const clock = new ManualClock((MAR_08 - 1800) * 1000);
    const service = await openMeteoService(clock);

    let snap = service.snapshot();
    expect(snap.daily[0]).toMatchObject({ date_local: '2026-03-07', time_epoch: MAR_07 });
    expect(snap.past_daily.at(-1)?.date_local).toBe('2026-03-06');
    expect(snap.hourly[0]?.time_epoch).toBe(MAR_07);
    expectLocalDays([...snap.past_daily, ...snap.daily]);

    clock.set((MAR_08 - 1) * 1000);
    expect(service.snapshot().daily[0]?.date_local).toBe('2026-03-07');

    clock.set(MAR_08 * 1000);
    snap = service.snapshot();
    expect(snap.daily[0]).toMatchObject({ date_local: '2026-03-08', time_epoch: MAR_08 });
    expect(snap.daily[1]).toMatchObject({ date_local: '2026-03-09', time_epoch: MAR_09 });
    expect(snap.past_daily.at(-1)).toMatchObject({ date_local: '2026-03-07', time_epoch: MAR_07 });
    expect(snap.hourly[0]?.time_epoch).toBe(MAR_08);
    const day = hoursOn(snap, '2026-03-08');
    expect(day).toHaveLength(23);
    expect(day).toEqual([...Array(23).keys()].map((i) => MAR_08 + i * HOUR));
    expect(day.map((t) => local(t).hour)).not.toContain(2);
    expect(hoursOn(snap, '2026-03-09')[0]).toBe(MAR_09);
    expect(hoursOn(snap, '2026-03-09')).toHaveLength(24);
    // Today's row stays today's for the whole local day, past UTC midnight too (UTC is 5 h ahead in winter).
    clock.set((MAR_09 - 1) * 1000);
    expect(service.snapshot().daily[0]?.date_local).toBe('2026-03-08');
  });

  it('fall back, 2026-11-01: local days, the split at local midnight, a 25-hour day', async () => {
    const clock = new ManualClock((NOV_01 - 1800) * 1000);
    const service = await openMeteoService(clock);

    let snap = service.snapshot();
    expect(snap.daily[0]).toMatchObject({ date_local: '2026-10-31', time_epoch: OCT_31 });
    expectLocalDays([...snap.past_daily, ...snap.daily]);

    clock.set((NOV_01 - 1) * 1000);
    expect(service.snapshot().daily[0]?.date_local).toBe('2026-10-31');
    clock.set(NOV_01 * 1000);
    snap = service.snapshot();
    expect(snap.daily[0]).toMatchObject({ date_local: '2026-11-01', time_epoch: NOV_01 });
    expect(snap.daily[1]).toMatchObject({ date_local: '2026-11-02', time_epoch: NOV_02 });
    expect(snap.past_daily.at(-1)?.date_local).toBe('2026-10-31');
    expect(snap.hourly[0]?.time_epoch).toBe(NOV_01);
    const day = hoursOn(snap, '2026-11-01');
    expect(day).toHaveLength(25);
    expect(day).toEqual([...Array(25).keys()].map((i) => NOV_01 + i * HOUR));
    expect(day.filter((t) => local(t).hour === 1)).toHaveLength(2);

    // 22:00 EST on the 1st is 03:00 UTC on the 2nd: still the 1st locally.
    clock.set((NOV_02 - 2 * HOUR) * 1000);
    snap = service.snapshot();
    expect(snap.daily[0]?.date_local).toBe('2026-11-01');
    expect(snap.hourly[0]?.time_epoch).toBe(NOV_01);
    clock.set(NOV_02 * 1000);
    expect(service.snapshot().daily[0]?.date_local).toBe('2026-11-02');
  });

  it('NWS backup on 2026-11-01: days built from its hours are local days of 25 hours', async () => {
    const clock = new ManualClock(localEpoch('2026-11-01T10:00:00') * 1000);
    const om = h.track(await new OpenMeteoPeer(clock, { mode: 'fail' }).start());
    const nws = h.track(await new NwsPeer(clock).start());
    const config = applied(configDocument(om.baseUrl, nws.baseUrl));
    const service = h.service(clock, () => config);
    await service.refresh();
    const snap = service.snapshot();
    expect(snap.source_is_backup).toBe(true);
    expectLocalDays(snap.daily);
    expect(snap.daily[0]).toMatchObject({ date_local: '2026-11-01', time_epoch: NOV_01 });
    expect(snap.daily[1]).toMatchObject({ date_local: '2026-11-02', time_epoch: NOV_02 });
    // NWS has no past hours: the hourly series starts at the current hour, inside today.
    expect(snap.hourly[0]?.time_epoch).toBe(localEpoch('2026-11-01T10:00:00'));
    expect(hoursOn(snap, '2026-11-02')).toHaveLength(24);
  });
});
