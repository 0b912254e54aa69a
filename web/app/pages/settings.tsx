import { Link } from '../components/link';
import type { UnitSystem } from '../lib/units';
import { AccountSection } from './settings/account-section';
import { ConfigSection } from './settings/config-section';
import { NotificationsSection } from './settings/notifications-section';
import { RawSection } from './settings/raw-section';
import { SnapshotsSection } from './settings/snapshots-section';
import { SystemSection } from './settings/system-section';
import { ThresholdsSection } from './settings/thresholds-section';
import { UnitsSection } from './settings/units-section';
import './settings/settings.css';

/** /settings/<section>: the configuration (form and raw), snapshots, thresholds, notifications, account, units, and system (backup, restore, restart, diagnostics). */

const SECTIONS = [
  { id: 'config', label: 'Configuration' },
  { id: 'raw', label: 'Raw TOML' },
  { id: 'snapshots', label: 'Snapshots' },
  { id: 'thresholds', label: 'Thresholds' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'account', label: 'Account' },
  { id: 'units', label: 'Units' },
  { id: 'system', label: 'System' },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

export default function SettingsPage({
  section,
  onUnitsChange,
}: {
  section: string | null;
  onUnitsChange: (units: UnitSystem) => void;
}) {
  const current = (section ?? 'config') as SectionId | string;
  const known = SECTIONS.find((s) => s.id === current);
  return (
    <div class="settings-page">
      <h1>Settings{known ? <span class="visually-hidden">: {known.label}</span> : null}</h1>
      <p>
        <Link to="devices">Devices &amp; Sensors</Link>: gateways, controllers, soil probes (bind, calibrate,
        rename, remove) and flow meters.
      </p>
      <nav aria-label="Settings sections" class="settings-nav">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a
                href={`settings/${s.id}`}
                data-route={`settings/${s.id}`}
                aria-current={s.id === current ? 'page' : undefined}
              >
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="settings-body">
        {current === 'config' && <ConfigSection />}
        {current === 'raw' && <RawSection />}
        {current === 'snapshots' && <SnapshotsSection />}
        {current === 'thresholds' && <ThresholdsSection />}
        {current === 'notifications' && <NotificationsSection />}
        {current === 'account' && <AccountSection />}
        {current === 'units' && <UnitsSection onUnitsChange={onUnitsChange} />}
        {current === 'system' && <SystemSection />}
        {!known && (
          <section class="card">
            <h2>No such section</h2>
            <p>There is no settings section “{current}”. Choose one of the sections above.</p>
          </section>
        )}
      </div>
    </div>
  );
}
