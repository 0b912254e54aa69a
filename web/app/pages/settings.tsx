import type { UnitSystem } from '../lib/units';
export default function SettingsPage(_props: {
  section: string | null;
  onUnitsChange: (units: UnitSystem) => void;
}) {
  return <h1>Settings</h1>;
}
