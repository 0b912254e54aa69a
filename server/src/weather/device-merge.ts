import { compareText } from '../core/compare';
import type { DeviceChannel, DeviceRecord, SourceBatch } from './source';

/**
 * A device's record after a new message (pure). A gateway upload lists only
 * the channels that reported in it (a probe skipping a beat, a channel
 * briefly out of reach): the sensors it has shown before stay listed, and so
 * do their channel records, so a missed channel does not vanish from
 * /devices. Identity and health fields come from the newest message; a null
 * there keeps the previous value.
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
    channels: mergeChannels(previous.channels ?? [], next.channels ?? []),
  };
}

function mergeChannels(previous: readonly DeviceChannel[], next: readonly DeviceChannel[]): DeviceChannel[] {
  const byKey = new Map(previous.map((c) => [c.key, c]));
  for (const channel of next) byKey.set(channel.key, channel);
  return [...byKey.values()].sort((a, b) => compareText(a.key, b.key));
}

/** The extra keys that carry a soil channel's battery (an Ecowitt WH51's, or a mapped probe's). */
export function probeBatteryKeys(soilKey: string): string[] {
  const channel = /^soil_moisture_pct:(.+)$/.exec(soilKey)?.[1];
  return channel === undefined ? [] : [`battery:wh51:${channel}`, `battery:probe:${channel}`];
}

/**
 * The channels one message shows (pure): every sensor the device lists in it,
 * last seen at the device's time (else `now`), with a soil channel's battery
 * when the same message carries it.
 */
export function channelsSeen(device: DeviceRecord, batch: SourceBatch, now: number): DeviceChannel[] {
  const extras = new Map((batch.extras ?? []).map((x) => [x.key, x.value]));
  const seen = device.last_seen_epoch ?? now;
  return device.sensors.map((key) => {
    const battery = probeBatteryKeys(key)
      .map((k) => extras.get(k))
      .find((v) => v !== undefined);
    return { key, last_seen_epoch: seen, battery: battery ?? null };
  });
}
