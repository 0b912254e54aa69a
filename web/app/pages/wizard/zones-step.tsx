import {
  controllerKindInfo,
  describe,
  type Described,
  SOIL_TEXT,
  SPECIES_TEXT,
  SPRINKLER_TEXT,
  SUN_TEXT,
} from './catalog';
import { SelectField, TextField } from './fields';
import {
  newZone,
  parseNumber,
  zoneFieldId,
  zoneKeys,
  zoneMissing,
  type FieldErrors,
  type SchemaEnums,
  type WizardForm,
  type ZoneForm,
} from './model';

const SQFT_PER_M2 = 10.763910416709722;

export function ZonesStep(props: {
  form: WizardForm;
  enums: SchemaEnums;
  errors: FieldErrors;
  update: (change: (form: WizardForm) => WizardForm) => void;
}) {
  const { form, enums } = props;
  const station = controllerKindInfo(form.controller.kind).station;
  const keys = zoneKeys(form.zones);

  const change = (uid: string, patch: Partial<ZoneForm>) =>
    props.update((f) => ({ ...f, zones: f.zones.map((z) => (z.uid === uid ? { ...z, ...patch } : z)) }));

  const add = () => {
    const zone = newZone();
    props.update((f) => ({ ...f, zones: [...f.zones, zone] }));
    // Focus the new zone's name once it is rendered.
    setTimeout(() => document.getElementById(`wz-zone-${zone.uid}-name`)?.focus(), 0);
  };

  const options = (values: string[], table: Record<string, Described>) =>
    values.map((v) => ({ value: v, label: describe(table, v).label }));

  return (
    <div>
      <p class="muted">
        A zone is one valve: an area watered together. Tell Raincheck what grows there and how it is watered;
        anything you are unsure of can stay unset and be refined later.
      </p>
      <details class="wz-glossary">
        <summary>What the choices mean</summary>
        <Glossary title="Species" values={enums.species} table={SPECIES_TEXT} />
        <Glossary title="Soil" values={enums.soil_texture} table={SOIL_TEXT} />
        <Glossary title="Sprinkler" values={enums.sprinkler_type} table={SPRINKLER_TEXT} />
        <Glossary title="Sun" values={enums.sun_exposure} table={SUN_TEXT} />
      </details>

      {form.zones.length === 0 && (
        <p class="notice">
          No zones yet. Add one per valve (or use Scan zones on the previous page). A setup without zones is
          valid: it only collects weather.
        </p>
      )}

      {form.zones.map((zone, i) => {
        const id = (key: string) => zoneFieldId(zone, key);
        const area = parseNumber(zone.area);
        const legend = zone.name.trim() || `Zone ${i + 1}`;
        return (
          <fieldset class="wz-zone" key={zone.uid}>
            <legend>{legend}</legend>
            <div class="wz-zone-grid">
              <TextField
                id={id('name')}
                label="Name"
                value={zone.name}
                placeholder="e.g. Front lawn"
                required
                help={
                  zone.key
                    ? `Key: ${zone.key}`
                    : zone.name.trim()
                      ? `Will be stored as “${keys[i] ?? ''}”.`
                      : 'A short name for the area it waters.'
                }
                error={props.errors[id('name')]}
                onValue={(name) => change(zone.uid, { name })}
              />
              <TextField
                id={id('area')}
                label="Area (sq ft)"
                value={zone.area}
                inputMode="decimal"
                placeholder="unknown"
                help={
                  area !== null && area > 0
                    ? `≈ ${(area / SQFT_PER_M2).toFixed(area / SQFT_PER_M2 < 10 ? 1 : 0)} m²; turns depths into gallons.`
                    : 'Optional: lets Raincheck report water volumes.'
                }
                error={props.errors[id('area')]}
                onValue={(value) => change(zone.uid, { area: value })}
              />
              <SelectField
                id={id('species')}
                label="Species"
                value={zone.species}
                emptyLabel="Not set"
                options={options(enums.species, SPECIES_TEXT)}
                help={zone.species ? describe(SPECIES_TEXT, zone.species).help : 'What grows in this zone.'}
                onValue={(species) => change(zone.uid, { species })}
              />
              <SelectField
                id={id('soil')}
                label="Soil"
                value={zone.soil}
                emptyLabel="Not set"
                options={options(enums.soil_texture, SOIL_TEXT)}
                help={
                  zone.soil
                    ? describe(SOIL_TEXT, zone.soil).help
                    : 'How much water the ground holds. Unsure? Loam is a fair guess.'
                }
                onValue={(soil) => change(zone.uid, { soil })}
              />
              <SelectField
                id={id('sprinkler')}
                label="Sprinkler"
                value={zone.sprinkler}
                emptyLabel="Not set"
                options={options(enums.sprinkler_type, SPRINKLER_TEXT)}
                help={
                  zone.sprinkler
                    ? describe(SPRINKLER_TEXT, zone.sprinkler).help
                    : 'The kind of heads in this zone.'
                }
                onValue={(sprinkler) => change(zone.uid, { sprinkler })}
              />
              <SelectField
                id={id('sun')}
                label="Sun"
                value={zone.sun}
                emptyLabel="Not set"
                options={options(enums.sun_exposure, SUN_TEXT)}
                help={
                  zone.sun
                    ? describe(SUN_TEXT, zone.sun).help
                    : 'Not set is treated as full sun (the most water).'
                }
                onValue={(sun) => change(zone.uid, { sun })}
              />
              <TextField
                id={id('station')}
                label="Station"
                value={zone.station}
                placeholder={station.example}
                help={
                  <>
                    {station.help}
                    {zone.stationName && <> On the controller: “{zone.stationName}”.</>}
                  </>
                }
                error={props.errors[id('station')]}
                onValue={(value) => change(zone.uid, { station: value })}
              />
              <TextField
                id={id('soaked')}
                label="Last soaked (optional)"
                type="date"
                value={zone.soakedOn}
                help="The day a soaking rain or a long watering last filled this zone's soil. Raincheck then knows its water from the first day instead of learning it over a week or two."
                error={props.errors[id('soaked')]}
                onValue={(value) => change(zone.uid, { soakedOn: value })}
              />
            </div>
            <MissingNote missing={zoneMissing(zone)} />
            <div class="row wz-zone-actions">
              <button
                type="button"
                class="danger"
                onClick={() =>
                  props.update((f) => ({ ...f, zones: f.zones.filter((z) => z.uid !== zone.uid) }))
                }
              >
                Remove zone
              </button>
            </div>
          </fieldset>
        );
      })}
      <button type="button" onClick={add}>
        Add zone
      </button>
    </div>
  );
}

export function MissingNote({ missing }: { missing: string[] }) {
  if (missing.length === 0) return null;
  return (
    <p class="wz-missing">
      Without {missing.join(', ').replace(/, ([^,]*)$/, ' and $1')} Raincheck cannot work out this zone's
      water needs, so it holds its watering (it never waters on a guess).
    </p>
  );
}

function Glossary(props: { title: string; values: string[]; table: Record<string, Described> }) {
  return (
    <section class="wz-glossary-part">
      <h3>{props.title}</h3>
      <dl>
        {props.values.map((v) => {
          const d = describe(props.table, v);
          return (
            <div key={v}>
              <dt>{d.label}</dt>
              <dd>{d.help || '—'}</dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}
