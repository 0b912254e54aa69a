import { tempStore } from './temp-db';

const t = tempStore();
const NOW = 1_750_000_000;

describe('ReadingsRepository', () => {
  it('stores measured values, a measured 0 included, and drops unmeasured ones', () => {
    const written = t.store().readings.insertMany([
      { epoch: NOW - 60, source_id: 'tempest', field: 'rain_in_last_min', value: 0 },
      { epoch: NOW - 60, source_id: 'tempest', field: 'air_temp_f', value: 71.5 },
      { epoch: NOW - 60, source_id: 'tempest', field: 'pop_pct', value: null },
      { epoch: NOW - 60, source_id: 'tempest', field: 'uv_index', value: undefined },
      { epoch: NOW - 60, source_id: 'tempest', field: 'rh_pct', value: Number.NaN },
    ]);
    expect(written).toBe(2);
    expect(t.store().readings.listRecent(NOW, 1)).toEqual([
      { epoch: NOW - 60, source_id: 'tempest', field: 'air_temp_f', value: 71.5 },
      { epoch: NOW - 60, source_id: 'tempest', field: 'rain_in_last_min', value: 0 },
    ]);
  });

  it('lists the last hours oldest first, optionally one field', () => {
    const readings = t.store().readings;
    readings.insertMany([
      { epoch: NOW - 7200, source_id: 'tempest', field: 'air_temp_f', value: 60 },
      { epoch: NOW - 60, source_id: 'tempest', field: 'air_temp_f', value: 62 },
      { epoch: NOW - 1800, source_id: 'tempest', field: 'air_temp_f', value: 61 },
      { epoch: NOW - 1800, source_id: 'tempest', field: 'rh_pct', value: 40 },
    ]);
    expect(readings.listRecent(NOW, 1, 'air_temp_f').map((r) => r.value)).toEqual([61, 62]);
    expect(readings.listRecent(NOW, 2)).toHaveLength(4);
  });

  it('treats a resent sample as an overwrite, not a failed batch', () => {
    const readings = t.store().readings;
    readings.insertMany([{ epoch: NOW, source_id: 's', field: 'f', value: 1 }]);
    readings.insertMany([{ epoch: NOW, source_id: 's', field: 'f', value: 2 }]);
    expect(readings.listRecent(NOW, 1)).toEqual([{ epoch: NOW, source_id: 's', field: 'f', value: 2 }]);
  });

  it('prunes readings older than the retention', () => {
    const readings = t.store().readings;
    readings.insertMany([
      { epoch: NOW - 8 * 86_400, source_id: 's', field: 'f', value: 1 },
      { epoch: NOW - 86_400, source_id: 's', field: 'f', value: 2 },
    ]);
    expect(readings.pruneOlderThan(NOW, 7 * 86_400)).toBe(1);
    expect(readings.listRecent(NOW, 24 * 30).map((r) => r.value)).toEqual([2]);
  });
});
