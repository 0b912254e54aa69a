import { compareText } from '../../core/compare';
import type { ProbeCalibration } from './probe-calibration';
import { probeBatteryKeys } from '../../weather/device-merge';
import { storedChannel } from './probe-evidence';

/**
 * Every soil probe the service knows (pure): each live soil channel of a
 * source, and each channel a zone binds even when it has gone quiet, with
 * its health (last seen, battery where the source reports one, signal where
 * the source gives it: no Ecowitt path reports WH51 signal today, so null),
 * the zone it feeds, its state in the engine and its calibration. The body of
 * GET /sensors/soil/probes and what the Devices page draws.
 */

export interface LiveExtra {
  key: string;
  source_id: string;
  value: number;
  observed_epoch: number;
  label: string | null;
}

export interface ProbeForecastView {
  zone: string;
  status: string;
  reading_pct: number | null;
  note: string | null;
  hold: string | null;
}

export interface ProbeListEntry {
  id: string;
  source_id: string;
  name: string;
  zone: string | null;
  raw_pct: number | null;
  last_seen_epoch: number | null;
  battery: number | null;
  battery_label: string | null;
  signal: number | null;
  status: string;
  reading_pct: number | null;
  note: string | null;
  hold: string | null;
  calibration: ProbeCalibration | null;
}

/** A channel's last record on its device (`source:<id>:<key>`), kept across restarts. */
export interface RecordedChannel {
  id: string;
  last_seen_epoch: number | null;
  battery: number | null;
}

export interface ProbeListInputs {
  extras: readonly LiveExtra[];
  /** The devices' recorded channels: a probe quiet since a restart keeps its last seen and battery. */
  recorded?: readonly RecordedChannel[];
  zones: Readonly<Record<string, { soil_sensor_id?: string | null }>>;
  forecasts: readonly ProbeForecastView[];
  calibration: (id: string) => ProbeCalibration | null;
  name: (id: string) => string | null;
}

const SOIL_KEY = /^source:([^:]+):soil_moisture_pct:(.+)$/;

export function probeList(inputs: ProbeListInputs): ProbeListEntry[] {
  const live = new Map(inputs.extras.map((x) => [x.key, x]));
  const boundBy = new Map<string, string>();
  for (const slug of Object.keys(inputs.zones).sort(compareText)) {
    const id = inputs.zones[slug]?.soil_sensor_id;
    if (id && !boundBy.has(id)) boundBy.set(id, slug);
  }
  const recorded = new Map((inputs.recorded ?? []).map((c) => [c.id, c]));
  const ids = new Set([
    ...inputs.extras.map((x) => x.key).filter((k) => SOIL_KEY.test(k)),
    ...[...recorded.keys()].filter((k) => SOIL_KEY.test(k)),
    ...boundBy.keys(),
  ]);
  return [...ids].sort(compareText).map((id) => {
    const extra = live.get(id);
    const channel = SOIL_KEY.exec(id);
    const battery = channel
      ? probeBatteryKeys(`soil_moisture_pct:${channel[2]}`)
          .map((key) => live.get(`source:${channel[1]}:${key}`))
          .find((x) => x !== undefined)
      : undefined;
    const record = recorded.get(id);
    const zone = boundBy.get(id) ?? null;
    const forecast = zone ? inputs.forecasts.find((f) => f.zone === zone) : undefined;
    return {
      id,
      source_id: storedChannel(id)?.source_id ?? (id.startsWith('ha:') ? 'ha' : ''),
      name: inputs.name(id) ?? extra?.label ?? id,
      zone,
      raw_pct: extra?.value ?? null,
      last_seen_epoch: extra?.observed_epoch ?? record?.last_seen_epoch ?? null,
      battery: battery?.value ?? record?.battery ?? null,
      battery_label: battery?.label ?? null,
      signal: null,
      status: forecast?.status ?? 'unbound',
      reading_pct: forecast?.reading_pct ?? null,
      note: forecast?.note ?? null,
      hold: forecast?.hold ?? null,
      calibration: inputs.calibration(id),
    };
  });
}
