import { useId, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { Link } from '../components/link';
import { api, ApiFailure } from '../lib/api';
import { formatDateTime } from '../lib/time';
import { useApi } from '../lib/use-api';
import { ConfigRename } from './devices/config-rename';
import {
  configWithoutDevice,
  deviceName,
  flowMeters,
  renameTargetOf,
  STATUS_TEXT,
  statusTone,
  type DeviceRecord,
  type DevicesConfig,
  type Probe,
} from './devices/devices-model';
import './devices/devices.css';

/**
 * /devices: every gateway, controller, soil probe and flow meter with its
 * health (last seen, battery, signal where the source gives them) and what it
 * feeds. Soil probes carry their actions: bind to a zone, calibrate (dry and
 * wet point from the current reading), rename, remove. Gateways and
 * controllers can be renamed (a display name; the id stays) and removed here,
 * flow meters renamed: whole-config writes, as Settings makes.
 */

function seen(epoch: number | null): string {
  return epoch === null ? 'never' : formatDateTime(epoch);
}

function ProbeCard({
  probe,
  zones,
  onChanged,
}: {
  probe: Probe;
  zones: [string, string][];
  onChanged: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(probe.name);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (path: string, method: 'PUT' | 'DELETE', json?: unknown) => {
    setBusy(true);
    setError(null);
    try {
      await api(path, json === undefined ? { method } : { method, json });
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const cal = probe.calibration;
  const tone = statusTone(probe.status);
  return (
    <li class="card device-card" data-probe={probe.id}>
      <div class="spread">
        <h3 id={`${id}-title`}>{probe.name}</h3>
        <span class={`badge ${tone}`} data-testid="probe-status">
          {STATUS_TEXT[probe.status] ?? probe.status}
        </span>
      </div>
      <p class="muted small">{probe.id}</p>
      <dl class="facts">
        <div>
          <dt>Reading</dt>
          <dd data-testid="probe-reading">
            {probe.raw_pct === null ? '—' : `${probe.raw_pct} %`}
            {probe.status === 'calibrated' &&
              probe.reading_pct !== null &&
              ` (calibrated ${probe.reading_pct} %)`}
          </dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{seen(probe.last_seen_epoch)}</dd>
        </div>
        <div>
          <dt>Battery</dt>
          <dd>
            {probe.battery === null
              ? '—'
              : `${probe.battery}${probe.battery_label?.includes('(V)') ? ' V' : ''}`}
          </dd>
        </div>
        <div>
          <dt>Signal</dt>
          <dd>{probe.signal === null ? 'not reported' : probe.signal}</dd>
        </div>
        <div>
          <dt>Feeds</dt>
          <dd data-testid="probe-feeds">
            {probe.zone ? (
              <Link to={`zones/${probe.zone}`}>
                {zones.find(([s]) => s === probe.zone)?.[1] ?? probe.zone}
              </Link>
            ) : (
              'no zone'
            )}
          </dd>
        </div>
        <div>
          <dt>Calibration</dt>
          <dd data-testid="probe-calibration">
            dry {cal?.dry_raw_pct ?? '—'} %, wet {cal?.wet_raw_pct ?? '—'} %
            {cal?.wet_origin === 'ledger_refill' && ' (wet point learnt from a refill)'}
          </dd>
        </div>
      </dl>
      {probe.note && <p class="muted small">{probe.note}</p>}
      {probe.hold && <p class="notice notice-info">{probe.hold}</p>}
      <div class="device-actions">
        <label for={`${id}-zone`}>Bound to</label>
        <select
          id={`${id}-zone`}
          value={probe.zone ?? ''}
          disabled={busy}
          onChange={(e) => {
            const zone = (e.currentTarget as HTMLSelectElement).value;
            void act('sensors/soil/binding', 'PUT', { sensor_id: probe.id, zone: zone === '' ? null : zone });
          }}
        >
          <option value="">No zone</option>
          {zones.map(([slug, label]) => (
            <option value={slug} key={slug}>
              {label}
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={busy || probe.raw_pct === null}
          onClick={() => void act('sensors/soil/calibration', 'PUT', { sensor_id: probe.id, point: 'dry' })}
        >
          Set dry point now
        </button>
        <button
          type="button"
          disabled={busy || probe.raw_pct === null}
          onClick={() => void act('sensors/soil/calibration', 'PUT', { sensor_id: probe.id, point: 'wet' })}
        >
          Set wet point now
        </button>
      </div>
      <form
        class="device-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void act('sensors/soil/name', 'PUT', { sensor_id: probe.id, name });
        }}
      >
        <label for={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={name}
          maxLength={80}
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          Rename
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => void act(`sensors/soil/probe?sensor_id=${encodeURIComponent(probe.id)}`, 'DELETE')}
        >
          Remove
        </button>
      </form>
      {error !== null && <ErrorNotice error={error} title="The probe could not be changed" />}
    </li>
  );
}

function DeviceCard({
  device,
  name,
  onChanged,
}: {
  device: DeviceRecord;
  name: string | null;
  onChanged: () => void;
}) {
  const controller = device.kind === 'controller';
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    const what = controller ? `controller ${device.source_id}` : `source ${device.source_id}`;
    if (!window.confirm(`Remove ${what} from the configuration?`)) return;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const next = configWithoutDevice(await api('config'), device);
      if (next === null) setNote(`${what} is not in the configuration (nothing to remove).`);
      else {
        await api('config', { method: 'PUT', json: next });
        onChanged();
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="card device-card" data-device={device.id}>
      <div class="spread">
        <h3 data-testid="device-name">{name ?? device.id}</h3>
        <span class="badge">{device.kind}</span>
      </div>
      {name !== null && <p class="muted small">{device.id}</p>}
      <dl class="facts">
        <div>
          <dt>Model</dt>
          <dd>{[device.model, device.firmware].filter(Boolean).join(' ') || '—'}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{controller ? 'see the zones' : seen(device.last_seen_epoch)}</dd>
        </div>
        <div>
          <dt>Battery</dt>
          <dd>{device.battery_v === null ? '—' : `${device.battery_v} V`}</dd>
        </div>
        <div>
          <dt>Signal</dt>
          <dd>{device.rssi_dbm === null ? 'not reported' : `${device.rssi_dbm} dBm`}</dd>
        </div>
        <div>
          <dt>Feeds</dt>
          <dd data-testid="device-feeds">
            {device.sensors.length === 0
              ? 'nothing yet'
              : controller
                ? device.sensors.map((slug, i) => (
                    <span key={slug}>
                      {i > 0 && ', '}
                      <Link to={`zones/${slug}`}>{slug}</Link>
                    </span>
                  ))
                : device.sensors.join(', ')}
          </dd>
        </div>
      </dl>
      {device.status_note && <p class="muted small">{device.status_note}</p>}
      <p class="small">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          Remove
        </button>{' '}
        <Link to="settings/config">Edit in Settings</Link>
      </p>
      <ConfigRename
        target={renameTargetOf(device)}
        name={name}
        what={controller ? `Controller ${device.source_id}` : `Source ${device.source_id}`}
        onChanged={onChanged}
      />
      {note && <p class="muted small">{note}</p>}
      {error !== null && <ErrorNotice error={error} title="The device could not be removed" />}
    </li>
  );
}

export default function DevicesPage() {
  const devices = useApi<{ devices: DeviceRecord[] }>('devices');
  const probes = useApi<{ probes: Probe[] }>('sensors/soil/probes');
  const config = useApi<DevicesConfig>('config');
  const zones: [string, string][] = Object.entries(config.data?.zones ?? {}).map(([slug, z]) => [
    slug,
    z.display_name ?? slug,
  ]);
  const meters = flowMeters(config.data);
  const reload = () => {
    probes.reload();
    devices.reload();
    config.reload();
  };
  const probeError = probes.error;
  return (
    <div class="devices-page">
      <p class="breadcrumb">
        <Link to="settings">← Settings</Link>
      </p>
      <h1>Devices &amp; Sensors</h1>
      {devices.error && <ErrorNotice error={devices.error} title="The devices could not be loaded" />}
      <section aria-labelledby="probes-title">
        <h2 id="probes-title">Soil probes</h2>
        {probeError &&
          (probeError instanceof ApiFailure && probeError.status === 404 ? (
            <p class="notice notice-warn">Soil probes need the history database, which is not available.</p>
          ) : (
            <ErrorNotice error={probeError} title="The soil probes could not be loaded" />
          ))}
        {probes.data && probes.data.probes.length === 0 && (
          <p class="muted">
            No soil probe has reported yet. A gateway's WH51 channels appear here after its first upload.
          </p>
        )}
        <ul class="device-list">
          {(probes.data?.probes ?? []).map((probe) => (
            <ProbeCard key={`${probe.id}|${probe.name}`} probe={probe} zones={zones} onChanged={reload} />
          ))}
        </ul>
      </section>
      <section aria-labelledby="gateways-title">
        <h2 id="gateways-title">Gateways, stations and controllers</h2>
        {devices.data && devices.data.devices.length === 0 && (
          <p class="muted">No device has reported yet.</p>
        )}
        <ul class="device-list">
          {(devices.data?.devices ?? []).map((device) => (
            <DeviceCard
              key={`${device.id}|${deviceName(config.data, device) ?? ''}`}
              device={device}
              name={deviceName(config.data, device)}
              onChanged={reload}
            />
          ))}
        </ul>
      </section>
      <section aria-labelledby="meters-title">
        <h2 id="meters-title">Flow meters</h2>
        {meters.length === 0 ? (
          <p class="muted">No flow meter is configured.</p>
        ) : (
          <ul class="device-list">
            {meters.map((m) => (
              <li class="card device-card" key={`${m.id}|${m.name ?? ''}`} data-meter={m.id}>
                <h3 data-testid="meter-name">{m.name ?? `Flow meter on ${m.where}`}</h3>
                {m.name !== null && <p class="muted small">Flow meter on {m.where}</p>}
                <p>Reads {m.reads}.</p>
                <p class="small">
                  <Link to="settings/config">Configure in Settings</Link>
                </p>
                <ConfigRename
                  target={{ list: 'flow_meter', id: m.id }}
                  name={m.name}
                  what={`The flow meter on ${m.where}`}
                  onChanged={reload}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
