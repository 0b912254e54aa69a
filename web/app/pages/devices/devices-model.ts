/** What the Devices & Sensors page reads (GET /devices, /sensors/soil/probes, /config). */

export interface DeviceRecord {
  id: string;
  kind: string;
  source_id: string;
  model: string | null;
  firmware: string | null;
  host: string | null;
  sensors: string[];
  battery_v: number | null;
  rssi_dbm: number | null;
  last_seen_epoch: number | null;
  status_note: string | null;
}

export interface ProbeCalibration {
  dry_raw_pct: number | null;
  wet_raw_pct: number | null;
  dry_origin: string | null;
  wet_origin: string | null;
}

export interface Probe {
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

export interface FlowMeterConfig {
  kind: string;
  entity_id?: string | null;
  topic?: string | null;
  source_id?: string | null;
  key?: string | null;
}

export interface DevicesConfig {
  zones?: Record<string, { display_name?: string; flow_meter?: FlowMeterConfig | null }>;
  controllers?: { id: string; kind: string; flow_meter?: FlowMeterConfig | null }[];
}

export interface FlowMeterRow {
  id: string;
  where: string;
  feeds: string[];
  reads: string;
}

/** Every configured flow meter: on a controller (its zones) or on one zone. */
export function flowMeters(config: DevicesConfig | null): FlowMeterRow[] {
  const zones = config?.zones ?? {};
  const rows: FlowMeterRow[] = [];
  for (const c of config?.controllers ?? []) {
    if (c.flow_meter)
      rows.push({
        id: `controller:${c.id}`,
        where: `controller ${c.id}`,
        feeds: [],
        reads: readsOf(c.flow_meter),
      });
  }
  for (const [slug, z] of Object.entries(zones)) {
    if (z.flow_meter)
      rows.push({
        id: `zone:${slug}`,
        where: `zone ${z.display_name ?? slug}`,
        feeds: [slug],
        reads: readsOf(z.flow_meter),
      });
  }
  return rows;
}

function readsOf(meter: FlowMeterConfig): string {
  return (
    meter.entity_id ??
    meter.topic ??
    (meter.source_id ? `source:${meter.source_id}:${meter.key ?? ''}` : meter.kind)
  );
}

/** The probe's state in words. */
export const STATUS_TEXT: Record<string, string> = {
  calibrated: 'calibrated',
  uncalibrated: 'uncalibrated (relative reading)',
  offline: 'offline',
  distrusted: 'distrusted',
  unsupported: 'not readable as history',
  no_probe: 'no probe',
  unbound: 'not bound to a zone',
};

export function statusTone(status: string): 'ok' | 'warn' | 'danger' | '' {
  if (status === 'calibrated' || status === 'uncalibrated') return 'ok';
  if (status === 'offline' || status === 'distrusted') return 'danger';
  if (status === 'unsupported') return 'warn';
  return '';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The config without the entry behind a device (a gateway's, station's or
 * cloud account's source, or a controller), for the page's Remove: the page
 * PUTs it back whole, as Settings does, so validation (a controller that
 * a zone names, a pinned source) answers 422 `config_invalid` and secrets
 * come back by entry id. Null when the config has no such entry (the demo
 * replay source). Renaming is not offered: the id is what zones, pins,
 * probes and stored history refer to.
 */
export function configWithoutDevice(
  config: { [key: string]: Json },
  device: Pick<DeviceRecord, 'kind' | 'source_id'>,
): { [key: string]: Json } | null {
  const list = device.kind === 'controller' ? 'controllers' : 'sources';
  const entries = config[list];
  if (!Array.isArray(entries)) return null;
  const kept = entries.filter(
    (e) => !(typeof e === 'object' && e !== null && !Array.isArray(e) && e['id'] === device.source_id),
  );
  return kept.length === entries.length ? null : { ...config, [list]: kept };
}
