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
  name?: string | null;
  entity_id?: string | null;
  topic?: string | null;
  source_id?: string | null;
  key?: string | null;
}

export interface DevicesConfig {
  zones?: Record<string, { display_name?: string | null; flow_meter?: FlowMeterConfig | null }>;
  controllers?: { id: string; kind: string; name?: string | null; flow_meter?: FlowMeterConfig | null }[];
  sources?: { id: string; name?: string | null }[];
}

/** A gateway's or controller's display name from the config; null when it has none (show the id). */
export function deviceName(
  config: DevicesConfig | null,
  device: Pick<DeviceRecord, 'kind' | 'source_id'>,
): string | null {
  const entries = device.kind === 'controller' ? config?.controllers : config?.sources;
  return entries?.find((e) => e.id === device.source_id)?.name ?? null;
}

export interface FlowMeterRow {
  /** `controller:<id>` or `zone:<slug>`: where the meter sits in the config. */
  id: string;
  name: string | null;
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
        name: c.flow_meter.name ?? null,
        where: `controller ${c.name ?? c.id}`,
        feeds: [],
        reads: readsOf(c.flow_meter),
      });
  }
  for (const [slug, z] of Object.entries(zones)) {
    if (z.flow_meter)
      rows.push({
        id: `zone:${slug}`,
        name: z.flow_meter.name ?? null,
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
 * replay source).
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

/** What the page's Rename names: a source or controller entry (by id), or a flow meter (by its row id). */
export type RenameTarget =
  { list: 'sources' | 'controllers'; id: string } | { list: 'flow_meter'; id: string };

export function renameTargetOf(device: Pick<DeviceRecord, 'kind' | 'source_id'>): RenameTarget {
  return { list: device.kind === 'controller' ? 'controllers' : 'sources', id: device.source_id };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withName(entry: { [key: string]: Json }, name: string): { [key: string]: Json } {
  const { name: _old, ...rest } = entry;
  return name === '' ? rest : { ...rest, name };
}

/**
 * The config with a new display name on a source, controller or flow meter,
 * for the page's Rename: PUT back whole like Remove, so the server validates
 * it (422 `config_invalid` for a name over 80 characters). The id never
 * changes: zones, probes and history refer to it. A blank name drops the key
 * (the id shows again). Null when the config has no such entry.
 */
export function configWithName(
  config: { [key: string]: Json },
  target: RenameTarget,
  name: string,
): { [key: string]: Json } | null {
  const trimmed = name.trim();
  if (target.list === 'flow_meter') return configWithMeterName(config, target.id, trimmed);
  const entries = config[target.list];
  if (!Array.isArray(entries)) return null;
  const at = entries.findIndex((e) => isObject(e) && e['id'] === target.id);
  const entry = entries[at];
  if (!isObject(entry)) return null;
  const next = [...entries];
  next[at] = withName(entry, trimmed);
  return { ...config, [target.list]: next };
}

function configWithMeterName(
  config: { [key: string]: Json },
  rowId: string,
  name: string,
): { [key: string]: Json } | null {
  const [owner, key] = [rowId.slice(0, rowId.indexOf(':')), rowId.slice(rowId.indexOf(':') + 1)];
  if (owner === 'zone') {
    const zones = config['zones'];
    const zone = isObject(zones) ? zones[key] : undefined;
    if (!isObject(zones) || !isObject(zone) || !isObject(zone['flow_meter'])) return null;
    const meter = withName(zone['flow_meter'], name);
    return { ...config, zones: { ...zones, [key]: { ...zone, flow_meter: meter } } };
  }
  if (owner !== 'controller') return null;
  const controllers = config['controllers'];
  if (!Array.isArray(controllers)) return null;
  const at = controllers.findIndex((c) => isObject(c) && c['id'] === key);
  const controller = controllers[at];
  if (!isObject(controller) || !isObject(controller['flow_meter'])) return null;
  const next = [...controllers];
  next[at] = { ...controller, flow_meter: withName(controller['flow_meter'], name) };
  return { ...config, controllers: next };
}
