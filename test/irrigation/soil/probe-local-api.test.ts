import { probeList } from '../../../server/src/irrigation/soil/probe-list';
import { parseLivedata } from '../../../server/src/weather/sources/ecowitt/livedata';
import { livedataFixture, TIMEZONE } from '../../weather/ecowitt/helpers';

/**
 * WH51 probes through the gateway's local API (the real get_livedata_info
 * capture: `ch_soil` channels 1 and 2 at 56 % and 47 %, battery bars 5 and
 * 4, and more channels after them): the poller's extras become probes with their battery, and the one a
 * zone binds names its zone.
 */

const POLL = Date.UTC(2024, 6, 16, 12, 0, 0) / 1000;

it('lists the local API soil channels as probes with battery and the bound zone', () => {
  const batch = parseLivedata(livedataFixture(), {
    sourceId: 'gw1',
    observedEpoch: POLL,
    timezone: TIMEZONE,
    host: '192.168.1.50',
  });
  const extras = (batch.extras ?? []).map((x) => ({
    key: `source:gw1:${x.key}`,
    source_id: 'gw1',
    value: x.value,
    observed_epoch: x.observedEpoch,
    label: x.label ?? null,
  }));
  const probes = probeList({
    extras,
    zones: { bed: { soil_sensor_id: 'source:gw1:soil_moisture_pct:2' }, lawn: {} },
    forecasts: [{ zone: 'bed', status: 'uncalibrated', reading_pct: 47, note: null, hold: null }],
    calibration: () => null,
    name: () => null,
  });
  const rows = probes.map((p) => [p.id, p.raw_pct, p.battery, p.zone, p.status, p.last_seen_epoch]);
  expect(rows.slice(0, 2)).toEqual([
    ['source:gw1:soil_moisture_pct:1', 56, 5, null, 'unbound', POLL],
    ['source:gw1:soil_moisture_pct:2', 47, 4, 'bed', 'uncalibrated', POLL],
  ]);
  // Every ch_soil channel of the capture is a probe; only the bound one names a zone.
  expect(probes.every((p) => p.id.startsWith('source:gw1:soil_moisture_pct:'))).toBe(true);
  expect(probes.filter((p) => p.zone !== null).map((p) => p.zone)).toEqual(['bed']);
  expect(probes[0]?.signal).toBeNull();
});
