import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import type { SourceKindInfo } from './catalog';
import type { Discovery } from './model';
import { CheckboxField, KindFields } from './fields';
import {
  preselectDiscovered,
  secretStored,
  type FieldErrors,
  type SourceChoice,
  type WizardForm,
} from './model';

export function SourcesStep(props: {
  form: WizardForm;
  kinds: SourceKindInfo[];
  catalogError: unknown;
  errors: FieldErrors;
  discovery: Discovery | null;
  onDiscovery: (d: Discovery) => void;
  update: (change: (form: WizardForm) => WizardForm) => void;
}) {
  const { form, kinds } = props;
  const [scanning, setScanning] = useState(false);
  const [scanError, setScanError] = useState<unknown>(null);

  const update = (id: string, change: (c: SourceChoice) => SourceChoice) =>
    props.update((f) => ({ ...f, sources: f.sources.map((c) => (c.id === id ? change(c) : c)) }));

  const scan = () => {
    setScanning(true);
    setScanError(null);
    api<Discovery>('wizard/discover')
      .then((found) => {
        props.onDiscovery(found);
        // Pre-select what was heard: a Tempest hub becomes a tempest_udp source with its serial.
        props.update((f) => ({ ...f, sources: preselectDiscovered(f.sources, found) }));
      })
      .catch(setScanError)
      .finally(() => setScanning(false));
  };

  useEffect(() => {
    if (!props.discovery) scan();
  }, []);

  const cloud = kinds.filter((k) => k.forecast);
  const local = kinds.filter((k) => !k.forecast);
  const unknown = form.sources.filter((s) => !kinds.some((k) => k.kind === s.kind));
  const forecastChoices = form.sources.filter((s) => s.selected && cloud.some((k) => k.kind === s.kind));

  const renderChoice = (choice: SourceChoice, info: SourceKindInfo) => (
    <div class={`wz-source ${choice.selected ? 'is-on' : ''}`} key={choice.id}>
      <CheckboxField
        id={`use.${choice.id}`}
        label={info.label}
        checked={choice.selected}
        onChecked={(selected) => update(choice.id, (c) => ({ ...c, selected }))}
        help={info.help}
      />
      {choice.selected && info.fields.length > 0 && (
        <KindFields
          prefix={`source.${choice.id}`}
          fields={info.fields}
          values={choice.values}
          errors={props.errors}
          stored={(field) => secretStored((choice.original?.config as Record<string, never>) ?? null, field)}
          onChange={(key, value) =>
            update(choice.id, (c) => ({ ...c, values: { ...c.values, [key]: value } }))
          }
        />
      )}
    </div>
  );

  const discovery = props.discovery;
  return (
    <div>
      <p class="muted">
        Where Raincheck gets its weather. A station in your garden measures what really fell; a forecast
        service tells what is coming. Use both when you can.
      </p>

      <section class="wz-panel" aria-labelledby="wz-discover-title">
        <div class="spread">
          <h3 id="wz-discover-title">On your network</h3>
          <button type="button" onClick={scan} disabled={scanning}>
            {scanning ? 'Scanning…' : 'Scan again'}
          </button>
        </div>
        <div role="status" aria-live="polite">
          {scanning && <p class="muted">Scanning… listening for weather hubs for about 3 seconds.</p>}
          {!scanning && discovery && discovery.error && (
            <p class="muted">The network could not be scanned: {discovery.error}.</p>
          )}
          {!scanning && discovery && !discovery.error && discovery.gateways.length === 0 && (
            <p class="muted">
              Nothing was found. Only Tempest hubs announce themselves (on UDP port 50222); Ecowitt gateways
              and sprinkler controllers do not, so tick them below and enter their address. Running in Docker?
              The container needs host networking to hear broadcasts.
            </p>
          )}
          {!scanning && discovery && discovery.gateways.length > 0 && (
            <ul class="wz-found">
              {discovery.gateways.map((g) => (
                <li key={g.serial}>
                  <strong>{g.kind === 'tempest_hub' ? 'Tempest hub' : g.kind}</strong> {g.serial} at{' '}
                  <code>{g.host}</code>
                  {g.stations.length > 0 && <> · stations {g.stations.join(', ')}</>} (selected below)
                </li>
              ))}
            </ul>
          )}
        </div>
        {scanError && <ErrorNotice error={scanError} title="The network scan failed" />}
      </section>

      {props.catalogError ? (
        <ErrorNotice error={props.catalogError} title="The list of weather services could not be loaded" />
      ) : null}

      <fieldset>
        <legend>Forecast and weather services</legend>
        {cloud.map((info) =>
          form.sources.filter((c) => c.kind === info.kind).map((choice) => renderChoice(choice, info)),
        )}
      </fieldset>

      <fieldset>
        <legend>Weather stations</legend>
        {local.map((info) =>
          form.sources.filter((c) => c.kind === info.kind).map((choice) => renderChoice(choice, info)),
        )}
      </fieldset>

      {unknown.length > 0 && (
        <fieldset>
          <legend>Other sources in this setup</legend>
          <p class="help">Kept as they are configured; change their settings under Settings.</p>
          {unknown.map((choice) => (
            <CheckboxField
              key={choice.id}
              id={`use.${choice.id}`}
              label={
                <>
                  {choice.id} <code>{choice.kind}</code>
                </>
              }
              checked={choice.selected}
              onChecked={(selected) => update(choice.id, (c) => ({ ...c, selected }))}
            />
          ))}
        </fieldset>
      )}

      <fieldset>
        <legend>Forecast provider</legend>
        <div class="wz-radio">
          <input
            type="radio"
            id="wz-forecast-auto"
            name="wz-forecast"
            checked={
              form.forecastProvider === '' || !forecastChoices.some((c) => c.id === form.forecastProvider)
            }
            onChange={() => props.update((f) => ({ ...f, forecastProvider: '' }))}
          />
          <label for="wz-forecast-auto">Automatic: the best service for your region</label>
        </div>
        {forecastChoices.map((choice) => (
          <div class="wz-radio" key={choice.id}>
            <input
              type="radio"
              id={`wz-forecast-${choice.id}`}
              name="wz-forecast"
              checked={form.forecastProvider === choice.id}
              onChange={() => props.update((f) => ({ ...f, forecastProvider: choice.id }))}
            />
            <label for={`wz-forecast-${choice.id}`}>
              Always {kinds.find((k) => k.kind === choice.kind)?.label ?? choice.kind}
            </label>
          </div>
        ))}
        {forecastChoices.length === 0 && (
          <p class="help">
            Tick a forecast service above to have forecasts; without one Raincheck cannot plan ahead.
          </p>
        )}
      </fieldset>
    </div>
  );
}
