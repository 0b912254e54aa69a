import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { reportOf, type JsonObject } from '../../components/schema-form-model';
import { api, ApiFailure } from '../../lib/api';
import { formatQuantity, useUnits, type UnitSystem } from '../../lib/units';
import { ValidationSummary } from './validation-summary';

/**
 * Settings > Units: display units, saved as config `deployment.units` (the
 * whole config is read fresh and written back with only that changed).
 * The API's numbers keep their units; this changes what people read (the
 * app, and the service's own reason sentences).
 */

const CHOICES: { value: UnitSystem; label: string }[] = [
  { value: 'imperial', label: 'Imperial' },
  { value: 'metric', label: 'Metric' },
];

export function UnitsSection({ onUnitsChange }: { onUnitsChange: (units: UnitSystem) => void }) {
  const units = useUnits();
  const [saving, setSaving] = useState<UnitSystem | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);

  const choose = async (next: UnitSystem) => {
    if (next === units || saving) return;
    setSaving(next);
    setStatus(null);
    setFailure(null);
    try {
      const config = await api<JsonObject>('config');
      const deployment =
        typeof config.deployment === 'object' &&
        config.deployment !== null &&
        !Array.isArray(config.deployment)
          ? config.deployment
          : {};
      await api('config', { method: 'PUT', json: { ...config, deployment: { ...deployment, units: next } } });
      onUnitsChange(next);
      setStatus(`Saved: the app now shows ${next} units.`);
    } catch (err) {
      setFailure(err);
    } finally {
      setSaving(null);
    }
  };

  const report =
    failure instanceof ApiFailure && failure.code === 'config_invalid' ? reportOf(failure.body) : null;
  const selected = saving ?? units;
  return (
    <section class="card settings-units" aria-labelledby="units-title">
      <h2 id="units-title">Units</h2>
      <fieldset class="settings-radios" disabled={saving !== null}>
        <legend>Display units</legend>
        {CHOICES.map((choice) => (
          <div key={choice.value} class="settings-radio">
            <input
              type="radio"
              id={`units-${choice.value}`}
              name="units"
              value={choice.value}
              checked={selected === choice.value}
              aria-describedby={`units-${choice.value}-example`}
              onChange={() => void choose(choice.value)}
            />
            <label for={`units-${choice.value}`}>{choice.label}</label>
            <span class="muted settings-small" id={`units-${choice.value}-example`}>
              {formatQuantity('temp_f', 68, choice.value)}, {formatQuantity('wind_mph', 10, choice.value)},{' '}
              {formatQuantity('rain_in', 0.5, choice.value)},{' '}
              {formatQuantity('volume_gal', 100, choice.value)}
            </span>
          </div>
        ))}
      </fieldset>
      <p class="muted settings-small">
        Saved in the configuration as <code>deployment.units</code>. What you read follows it: this app, the
        reasons Raincheck writes (history, notifications, the explanation, Home Assistant’s “Today’s reason”).
        The API’s numbers and the thresholds keep the service’s units.
      </p>
      <div role="status" aria-live="polite">
        {saving && <p class="muted">Saving…</p>}
        {status && <p class="notice notice-ok settings-ok">{status}</p>}
      </div>
      {report ? (
        <ValidationSummary
          title="The units were not saved: the configuration does not validate."
          entries={[
            ...report.errors.map((e) => ({ ...e, severity: 'error' as const })),
            ...report.warnings.map((e) => ({ ...e, severity: 'warning' as const })),
          ]}
        />
      ) : (
        <ErrorNotice error={failure} title="The units were not saved" />
      )}
    </section>
  );
}
