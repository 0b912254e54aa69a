import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/**
 * The last known record of each device behind a weather source (a gateway,
 * hub or station: identity, health, last seen) and of each channel it has
 * reported (last seen, battery where the source gives one), so /devices and
 * the probe list survive a restart instead of staying empty until the next
 * upload. One row per device and per (device, channel); a save upserts, so a
 * channel an upload omits keeps its row.
 */

export type StoredDeviceKind = 'hub' | 'station' | 'gateway' | 'cloud_account' | 'controller';

export interface StoredDeviceChannel {
  key: string;
  last_seen_epoch: number | null;
  battery: number | null;
}

export interface StoredDevice {
  id: string;
  kind: StoredDeviceKind;
  source_id: string;
  model: string | null;
  serial: string | null;
  firmware: string | null;
  host: string | null;
  battery_v: number | null;
  rssi_dbm: number | null;
  last_seen_epoch: number | null;
  status_note: string | null;
  channels: StoredDeviceChannel[];
}

type DeviceRow = Omit<StoredDevice, 'channels'>;
type ChannelRow = StoredDeviceChannel & { device_id: string };

export class DeviceRecordsRepository {
  private readonly upsertDevice: Statement<[DeviceRow]>;
  private readonly upsertChannel: Statement<[ChannelRow]>;
  private readonly devicesOf: Statement<[string], DeviceRow>;
  private readonly channelsOf: Statement<[string], StoredDeviceChannel>;

  constructor(private readonly db: Database) {
    this.upsertDevice = db.prepare<[DeviceRow]>(
      'INSERT INTO device_records (id, kind, source_id, model, serial, firmware, host, battery_v, rssi_dbm, ' +
        'last_seen_epoch, status_note) VALUES (@id, @kind, @source_id, @model, @serial, @firmware, @host, ' +
        '@battery_v, @rssi_dbm, @last_seen_epoch, @status_note) ON CONFLICT (id) DO UPDATE SET ' +
        'kind = excluded.kind, source_id = excluded.source_id, model = excluded.model, serial = excluded.serial, ' +
        'firmware = excluded.firmware, host = excluded.host, battery_v = excluded.battery_v, ' +
        'rssi_dbm = excluded.rssi_dbm, last_seen_epoch = excluded.last_seen_epoch, status_note = excluded.status_note',
    );
    this.upsertChannel = db.prepare<[ChannelRow]>(
      'INSERT INTO device_channels (device_id, key, last_seen_epoch, battery) ' +
        'VALUES (@device_id, @key, @last_seen_epoch, @battery) ON CONFLICT (device_id, key) DO UPDATE SET ' +
        'last_seen_epoch = excluded.last_seen_epoch, battery = excluded.battery',
    );
    this.devicesOf = db.prepare<[string], DeviceRow>(
      'SELECT id, kind, source_id, model, serial, firmware, host, battery_v, rssi_dbm, last_seen_epoch, ' +
        'status_note FROM device_records WHERE source_id = ? ORDER BY id',
    );
    this.channelsOf = db.prepare<[string], StoredDeviceChannel>(
      'SELECT key, last_seen_epoch, battery FROM device_channels WHERE device_id = ? ORDER BY key',
    );
  }

  /** Upserts the device and the channels given; channels not given keep their rows. */
  save(device: StoredDevice): void {
    const { channels, ...row } = device;
    this.db.transaction(() => {
      this.upsertDevice.run(row);
      for (const channel of channels) this.upsertChannel.run({ device_id: device.id, ...channel });
    })();
  }

  /** The devices last recorded for a source, each with every channel it has reported. */
  forSource(sourceId: string): StoredDevice[] {
    return this.devicesOf.all(sourceId).map((row) => ({ ...row, channels: this.channelsOf.all(row.id) }));
  }
}
