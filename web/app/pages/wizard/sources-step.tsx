import { useEffect } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import type { SourceKindInfo } from './catalog';
import { CheckboxField, KindFields } from './fields';
import {
  discoveredAddress,
  discoveredKind,
  secretStored,
  type Discovery,
  type FieldErrors,
  type SourceChoice,
  type WizardForm,
} from './model';

export function SourcesStep(props: {
  form: WizardForm;
  kinds: SourceKindInfo[];
  catalogError: unknown;
  errors: FieldErrors;
  /** The last LAN sweep's answer (null: none yet). */
  discovery: Discovery | null;
  scanning: boolean;
  scanError: unknown;
  /** Starts a sweep (wizard.tsx: it also pre-selects the hubs heard). */
  onScan: () => void;
  update: (change: (form: WizardForm) => WizardForm) => void;
}) {
  const { form, kinds, scanning } = props;

  const update = (id: string, change: (c: SourceChoice) => SourceChoice) =>
    props.update((f) => ({ ...f, sources: f.sources.map((c) => (c.id === id ? change(c) : c)) }));

  useEffect(() => {
    if (!props.discovery && !props.scanning) props.onScan();
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
  const controllers = discovery?.controllers ?? [];
  const nothingHeard = discovery !== null && discovery.gateways.length === 0 && controllers.length === 0;
  return (
    <div>
      <p class="muted">
        Where Raincheck gets its weather. A station in your garden measures what really fell; a forecast
        service tells what is coming. Use both when you can.
      </p>

      <section class="wz-panel" aria-labelledby="wz-discover-title">
        <div class="spread">
          <h3 id="wz-discover-title">On your network</h3>
          <button type="button" onClick={props.onScan} disabled={scanning}>
            {scanning ? 'Scanning…' : 'Scan again'}
          </button>
        </div>
        <div role="status" aria-live="polite">
          {scanning && (
            <p class="muted">
              Scanning… listening for weather hubs and sprinkler controllers for about 3 seconds.
            </p>
          )}
          {!scanning && discovery && (
            <div class="wz-found-groups">
              <div>
                <h4>Weather hubs</h4>
                {discovery.error ? (
                  <p class="muted">The network could not be scanned for hubs: {discovery.error}.</p>
                ) : discovery.gateways.length === 0 ? (
                  <p class="muted">
                    None heard. Only Tempest hubs announce themselves (on UDP port 50222); Ecowitt gateways do
                    not, so tick them below and enter their address.
                  </p>
                ) : (
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
              <div>
                <h4>Sprinkler controllers</h4>
                {controllers.length === 0 ? (
                  <p class="muted">
                    {discovery.controllers_note
                      ? `None found: ${discovery.controllers_note}.`
                      : 'None found. ESPHome boards and OpenSprinkler units (by their name) are looked for; enter yours by hand on the Controller step.'}
                  </p>
                ) : (
                  <>
                    <ul class="wz-found">
                      {controllers.map((c) => (
                        <li key={`${c.kind}:${c.host}:${c.name}`}>
                          <strong>{c.name}</strong> · {discoveredKind(c).label} at{' '}
                          <code>{discoveredAddress(c)}</code>
                        </li>
                      ))}
                    </ul>
                    <p class="help">Pick one on the Controller step.</p>
                  </>
                )}
              </div>
            </div>
          )}
          {!scanning && discovery && nothingHeard && !discovery.error && (
            <p class="help">
              Running in Docker? The container needs host networking to hear the devices on your network.
            </p>
          )}
        </div>
        {props.scanError ? <ErrorNotice error={props.scanError} title="The network scan failed" /> : null}
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
