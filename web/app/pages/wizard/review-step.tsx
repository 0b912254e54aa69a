import type { ComponentChildren } from 'preact';
import type { NewAccount } from '../login/account';
import {
  controllerKindInfo,
  describe,
  SOIL_TEXT,
  SPECIES_TEXT,
  SPRINKLER_TEXT,
  SUN_TEXT,
  UNITS_TEXT,
  type SourceKindInfo,
} from './catalog';
import { formatLatLon } from './geo';
import { parseNumber, secretStored, STEP_TITLES, zoneMissing, type StepId, type WizardForm } from './model';
import { MissingNote } from './zones-step';

const UNKNOWN = <span class="unknown">—</span>;

export function ReviewStep(props: {
  form: WizardForm;
  kinds: SourceKindInfo[];
  account: (NewAccount & { skip: boolean }) | null;
  onEdit: (step: StepId) => void;
}) {
  const { form } = props;
  const lat = parseNumber(form.location.lat);
  const lon = parseNumber(form.location.lon);
  const elevation = parseNumber(form.location.elevation);
  const selected = form.sources.filter((s) => s.selected);
  const provider = selected.find((s) => s.id === form.forecastProvider);
  const kindLabel = (kind: string) => props.kinds.find((k) => k.kind === kind)?.label ?? kind;
  const info = controllerKindInfo(form.controller.kind);
  const sameKind =
    form.controller.original !== null && form.controller.original.kind === form.controller.kind;
  const storedConfig = sameKind
    ? ((form.controller.original?.config ?? null) as Record<string, never> | null)
    : null;

  return (
    <div class="wz-review">
      <p class="muted">
        Check everything, then apply. Nothing is written to the live configuration before you do.
      </p>

      <Part title="Location" step="location" onEdit={props.onEdit}>
        <dl class="wz-facts">
          <Fact label="Coordinates">{lat !== null && lon !== null ? formatLatLon(lat, lon) : UNKNOWN}</Fact>
          <Fact label="Time zone">
            {form.location.timezone || <span class="muted">derived from the location</span>}
          </Fact>
          <Fact label="Elevation">
            {elevation !== null ? `${elevation} m` : <span class="unknown">— unknown</span>}
          </Fact>
          <Fact label="Units">{describe(UNITS_TEXT, form.location.units).label}</Fact>
        </dl>
      </Part>

      <Part title="Weather sources" step="sources" onEdit={props.onEdit}>
        {selected.length === 0 ? (
          <p class="notice notice-warn">No weather source: Raincheck will have no weather to decide with.</p>
        ) : (
          <ul class="wz-list">
            {selected.map((s) => (
              <li key={s.id}>
                {kindLabel(s.kind)} <code>{s.id}</code>
                {s.values.hub_serial ? <> · hub {s.values.hub_serial}</> : null}
                {s.values.host ? <> · {s.values.host}</> : null}
              </li>
            ))}
          </ul>
        )}
        <p>Forecast: {provider ? kindLabel(provider.kind) : 'automatic (the best service for the region)'}</p>
      </Part>

      <Part title="Controller" step="controller" onEdit={props.onEdit}>
        <dl class="wz-facts">
          <Fact label="Kind">{info.label}</Fact>
          <Fact label="Id">
            <code>{form.controller.id}</code>
          </Fact>
          {info.fields.map((field) => {
            const value = form.controller.values[field.key] ?? '';
            let shown: ComponentChildren;
            if (field.secret)
              shown =
                value !== '' ? 'set' : secretStored(storedConfig, field) ? 'stored, unchanged' : UNKNOWN;
            else if (field.type === 'checkbox') shown = value === 'true' ? 'yes' : 'no';
            else if (value) shown = value;
            else if (field.fallback) shown = `${field.fallback} (default)`;
            else shown = UNKNOWN;
            return (
              <Fact key={field.key} label={field.label}>
                {shown}
              </Fact>
            );
          })}
        </dl>
      </Part>

      <Part title="Zones" step="zones" onEdit={props.onEdit}>
        {form.zones.length === 0 ? (
          <p class="muted">No zones: Raincheck will only collect weather.</p>
        ) : (
          <ul class="wz-zone-cards">
            {form.zones.map((z) => (
              <li key={z.uid} class="wz-zone-card">
                <h4>{z.name || UNKNOWN}</h4>
                <dl class="wz-facts">
                  <Fact label="Species">{z.species ? describe(SPECIES_TEXT, z.species).label : UNKNOWN}</Fact>
                  <Fact label="Soil">{z.soil ? describe(SOIL_TEXT, z.soil).label : UNKNOWN}</Fact>
                  <Fact label="Sprinkler">
                    {z.sprinkler ? describe(SPRINKLER_TEXT, z.sprinkler).label : UNKNOWN}
                  </Fact>
                  <Fact label="Sun">{z.sun ? describe(SUN_TEXT, z.sun).label : UNKNOWN}</Fact>
                  <Fact label="Area">
                    {parseNumber(z.area) !== null ? `${z.area.trim()} sq ft` : UNKNOWN}
                  </Fact>
                  <Fact label="Station">{z.station || UNKNOWN}</Fact>
                </dl>
                <MissingNote missing={zoneMissing(z)} />
              </li>
            ))}
          </ul>
        )}
      </Part>

      {props.account && (
        <Part title="Owner account" step="account" onEdit={props.onEdit}>
          {props.account.skip ? (
            <p class="notice notice-warn">
              Skipped: sign-in stays off, so anyone on your network can change settings. You can create the
              account later on the sign-in page.
            </p>
          ) : (
            <p>
              <strong>{props.account.username}</strong> will be created after the configuration is applied,
              and sign-in will then be required.
            </p>
          )}
        </Part>
      )}
    </div>
  );
}

function Part(props: {
  title: string;
  step: StepId;
  onEdit: (step: StepId) => void;
  children: ComponentChildren;
}) {
  return (
    <section class="wz-review-part" aria-label={props.title}>
      <div class="spread">
        <h3>{props.title}</h3>
        <button type="button" class="wz-link" onClick={() => props.onEdit(props.step)}>
          Edit<span class="visually-hidden"> {STEP_TITLES[props.step].toLowerCase()}</span>
        </button>
      </div>
      {props.children}
    </section>
  );
}

function Fact(props: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}
