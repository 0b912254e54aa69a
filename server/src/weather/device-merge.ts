import type { DeviceRecord } from './source';

/**
 * A device's record after a new message (pure). A gateway upload lists only
 * the channels that reported in it (a probe skipping a beat, a channel
 * briefly out of reach): the sensors it has shown before stay listed, so a
 * missed channel does not vanish from /devices. Identity and health fields
 * come from the newest message; a null there keeps the previous value.
 */
export function mergeDevice(previous: DeviceRecord | undefined, next: DeviceRecord): DeviceRecord {
  if (!previous) return next;
  return {
    ...next,
    model: next.model ?? previous.model,
    serial: next.serial ?? previous.serial,
    firmware: next.firmware ?? previous.firmware,
    host: next.host ?? previous.host,
    battery_v: next.battery_v ?? previous.battery_v,
    rssi_dbm: next.rssi_dbm ?? previous.rssi_dbm,
    sensors: [...new Set([...previous.sensors, ...next.sensors])].sort(),
  };
}
