import { lazySchema } from '../../../core/zod-lazy';
import type { ExtraReading } from '../../source';

/**
 * A webhook's soil probe channels (config `soil_channels`): each maps a dot
 * path of the body to a soil-moisture channel, published as the extra
 * reading `soil_moisture_pct:<channel>` (the key an Ecowitt WH51 channel
 * has), so a zone binds it as `source:<source id>:soil_moisture_pct:<channel>`
 * and the probe's history is kept like a gateway's. `battery_path` adds the
 * channel's battery as `battery:probe:<channel>`. A value outside 0..100 is
 * passed on as measured (the probe evidence distrusts it, with an anomaly);
 * a missing or non-numeric value publishes nothing (never a 0).
 */

const DOT_PATH = /^[^.\s]+(?:\.[^.\s]+)*$/;

export const soilChannelSchema = lazySchema((z) =>
  z.strictObject({
    path: z.string().regex(DOT_PATH, 'expected a dot path such as "probes.bed.moisture"'),
    channel: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'a channel name of letters, digits, - or _'),
    label: z.string().max(80).optional(),
    battery_path: z.string().regex(DOT_PATH, 'expected a dot path').optional(),
  }),
);

export interface SoilChannelMapping {
  path: string;
  channel: string;
  label?: string | undefined;
  battery_path?: string | undefined;
}

export function mapSoilChannels(
  body: Record<string, unknown>,
  channels: readonly SoilChannelMapping[],
  observedEpoch: number,
  read: (body: unknown, path: string) => number | null,
): ExtraReading[] {
  const out: ExtraReading[] = [];
  for (const ch of channels) {
    const value = read(body, ch.path);
    if (value !== null) {
      out.push({
        key: `soil_moisture_pct:${ch.channel}`,
        value,
        observedEpoch,
        label: ch.label ?? `Soil moisture ${ch.channel}`,
      });
    }
    const battery = ch.battery_path ? read(body, ch.battery_path) : null;
    if (battery !== null) {
      out.push({
        key: `battery:probe:${ch.channel}`,
        value: battery,
        observedEpoch,
        label: `Soil probe ${ch.channel} battery`,
      });
    }
  }
  return out;
}
