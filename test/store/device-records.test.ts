import type { StoredDevice } from '../../server/src/store/device-records';
import { tempStore } from './temp-db';

/**
 * Migration 10 keeps each source device's last record and its channels' last
 * seen and battery, so /devices is not empty after a restart; a save upserts,
 * and a channel a later message omits keeps its row.
 */

const db = tempStore();

function gateway(overrides: Partial<StoredDevice> = {}): StoredDevice {
  return {
    id: 'console:gateway',
    kind: 'gateway',
    source_id: 'console',
    model: 'GW1100B',
    serial: null,
    firmware: 'V2.1.4',
    host: null,
    battery_v: null,
    rssi_dbm: null,
    last_seen_epoch: 1_700_000_000,
    status_note: null,
    channels: [
      { key: 'soil_moisture_pct:1', last_seen_epoch: 1_700_000_000, battery: 1.4 },
      { key: 'soil_moisture_pct:2', last_seen_epoch: 1_700_000_000, battery: 1.5 },
    ],
    ...overrides,
  };
}

describe('device records', () => {
  it('survive a reopen, and a channel a later save omits keeps its row', () => {
    db.store().deviceRecords.save(gateway());
    db.store().deviceRecords.save(
      gateway({
        firmware: 'V2.1.5',
        last_seen_epoch: 1_700_000_600,
        channels: [{ key: 'soil_moisture_pct:1', last_seen_epoch: 1_700_000_600, battery: 1.3 }],
      }),
    );
    const reopened = db.reopen();
    expect(reopened.deviceRecords.forSource('console')).toEqual([
      gateway({
        firmware: 'V2.1.5',
        last_seen_epoch: 1_700_000_600,
        channels: [
          { key: 'soil_moisture_pct:1', last_seen_epoch: 1_700_000_600, battery: 1.3 },
          { key: 'soil_moisture_pct:2', last_seen_epoch: 1_700_000_000, battery: 1.5 },
        ],
      }),
    ]);
    expect(reopened.deviceRecords.forSource('other')).toEqual([]);
  });
});
