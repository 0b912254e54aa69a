import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { controllerKindInfo } from './catalog';
import { KindFields, SelectField, TextField } from './fields';
import {
  changeControllerKind,
  controllerEntry,
  controllerFromDiscovered,
  controllerKindOptions,
  describeControllerTest,
  discoveredAddress,
  discoveredFilledNote,
  discoveredInUse,
  discoveredKind,
  mergeScannedZones,
  secretStored,
  type ControllerTest,
  type DiscoveredController,
  type Discovery,
  type FieldErrors,
  type ScannedZone,
  type WizardForm,
} from './model';

export function ControllerStep(props: {
  form: WizardForm;
  errors: FieldErrors;
  /** The last LAN sweep's answer (null: none yet); its controllers are offered as "Use <name>". */
  discovery: Discovery | null;
  scanning: boolean;
  scanError: unknown;
  onScan: () => void;
  update: (change: (form: WizardForm) => WizardForm) => void;
  /** Checks the controller's fields before a probe; false when something is missing. */
  checkFields: () => boolean;
}) {
  const { form } = props;
  const { controller } = form;
  const info = controllerKindInfo(controller.kind);
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<{ text: string; ok: boolean } | null>(null);
  const [testError, setTestError] = useState<unknown>(null);
  const [scanning, setScanning] = useState(false);
  const [scanNote, setScanNote] = useState<string | null>(null);
  const [scanError, setScanError] = useState<unknown>(null);
  const [filled, setFilled] = useState<string | null>(null);
  const sameKind = controller.original !== null && controller.original.kind === controller.kind;
  const storedConfig = sameKind
    ? ((controller.original?.config ?? null) as Record<string, never> | null)
    : null;

  const reset = () => {
    setResult(null);
    setTestError(null);
    setScanNote(null);
    setScanError(null);
    setFilled(null);
  };

  useEffect(() => {
    if (!props.discovery && !props.scanning) props.onScan();
  }, []);

  const pick = (found: DiscoveredController) => {
    reset();
    props.update((f) => ({ ...f, controller: controllerFromDiscovered(f.controller, found) }));
    setFilled(discoveredFilledNote(found));
  };
  const found = props.discovery?.controllers ?? [];

  const test = () => {
    reset();
    if (!props.checkFields()) return;
    setTesting(true);
    api<ControllerTest>('wizard/test_controller', {
      method: 'POST',
      json: { controller: controllerEntry(form) },
    })
      .then((r) => setResult({ text: describeControllerTest(r), ok: r.reachable !== false }))
      .catch(setTestError)
      .finally(() => setTesting(false));
  };

  const scan = () => {
    reset();
    if (!props.checkFields()) return;
    setScanning(true);
    api<{ zones: ScannedZone[] }>('wizard/scan_zones', {
      method: 'POST',
      json: { controller: controllerEntry(form) },
    })
      .then((r) => {
        props.update((f) => ({ ...f, zones: mergeScannedZones(f.zones, r.zones) }));
        setScanNote(
          r.zones.length === 0
            ? 'The controller listed no zones. Add them on the next page.'
            : `Found ${r.zones.length} ${r.zones.length === 1 ? 'zone' : 'zones'}: ${r.zones
                .map((z) => z.name || `station ${z.station_id}`)
                .join(', ')}. They are on the next page.`,
        );
      })
      .catch(setScanError)
      .finally(() => setScanning(false));
  };

  return (
    <div>
      <p class="muted">
        What opens the valves. Start with a dry run if you want to watch Raincheck's decisions first.
      </p>
      <section class="wz-panel" aria-labelledby="wz-controllers-found-title">
        <div class="spread">
          <h3 id="wz-controllers-found-title">Found on your network</h3>
          <button type="button" onClick={props.onScan} disabled={props.scanning}>
            {props.scanning ? 'Scanning…' : 'Scan again'}
          </button>
        </div>
        <div role="status" aria-live="polite">
          {props.scanning && <p class="muted">Looking for controllers on your network (about 3 seconds)…</p>}
          {!props.scanning && props.discovery && found.length === 0 && (
            <p class="muted">
              {props.discovery.controllers_note
                ? `No controller found: ${props.discovery.controllers_note}.`
                : 'No controller answered. ESPHome boards and OpenSprinkler units (by their name) are looked for.'}{' '}
              Choose the kind below and enter its address.
            </p>
          )}
          {!props.scanning && found.length > 0 && (
            <p class="muted">
              {found.length === 1 ? 'One controller answered' : `${found.length} controllers answered`}: use
              one to fill in the fields below.
            </p>
          )}
        </div>
        {!props.scanning && found.length > 0 && (
          <ul class="wz-picks">
            {found.map((c, i) => {
              const inUse = discoveredInUse(controller, c);
              return (
                <li key={`${c.kind}:${c.host}:${c.name}`}>
                  <button type="button" onClick={() => pick(c)} aria-describedby={`wz-pick-${i}`}>
                    Use {c.name}
                  </button>
                  <span id={`wz-pick-${i}`} class="wz-pick-what">
                    {discoveredKind(c).label} at <code>{discoveredAddress(c)}</code>
                    {inUse && <span class="badge ok">In use</span>}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
        {props.scanError ? <ErrorNotice error={props.scanError} title="The network scan failed" /> : null}
      </section>
      <SelectField
        id="controller.kind"
        label="Controller kind"
        value={controller.kind}
        options={controllerKindOptions(controller.kind).map((k) => ({ value: k.kind, label: k.label }))}
        help={info.help}
        onValue={(kind) => {
          reset();
          props.update((f) => ({ ...f, controller: changeControllerKind(f.controller, kind) }));
        }}
      />
      <KindFields
        prefix="controller"
        fields={info.fields}
        values={controller.values}
        errors={props.errors}
        stored={(field) => secretStored(storedConfig, field)}
        onChange={(key, value) =>
          props.update((f) => ({
            ...f,
            controller: { ...f.controller, values: { ...f.controller.values, [key]: value } },
          }))
        }
      />
      <details class="wz-more">
        <summary>Advanced</summary>
        <TextField
          id="controller.id"
          label="Controller id"
          value={controller.id}
          help="How zones and the history refer to this controller. Keep the suggestion unless you have a reason."
          error={props.errors['controller.id']}
          onValue={(id) => props.update((f) => ({ ...f, controller: { ...f.controller, id } }))}
        />
      </details>
      {form.otherControllers.length > 0 && (
        <p class="help">
          Also in this setup, kept as configured: {form.otherControllers.map((c) => String(c.id)).join(', ')}.
        </p>
      )}

      <div class="row wz-actions-inline">
        <button type="button" onClick={test} disabled={testing || !info.testable}>
          {testing ? 'Testing…' : 'Test controller'}
        </button>
        <button type="button" onClick={scan} disabled={scanning || !info.scannable}>
          {scanning ? 'Scanning…' : 'Scan zones'}
        </button>
      </div>
      {!info.scannable && (
        <p class="help">
          {info.testable
            ? 'This kind cannot list its zones: add them by hand on the next page.'
            : 'This kind cannot be tested from here (it needs a live broker or Home Assistant link) and cannot list its zones: add them by hand on the next page.'}
        </p>
      )}
      <div role="status" aria-live="polite" class="wz-status">
        {filled && <p class="notice">{filled}</p>}
        {result && (
          <p class={`notice ${result.ok ? 'notice-ok' : 'notice-warn'}`}>
            <strong>{result.ok ? 'Test passed: ' : 'Test finished: '}</strong>
            {result.text}
          </p>
        )}
        {scanNote && <p class="notice notice-ok">{scanNote}</p>}
      </div>
      {testError ? <ErrorNotice error={testError} title="The controller test failed" /> : null}
      {scanError ? <ErrorNotice error={scanError} title="The zone scan failed" /> : null}
    </div>
  );
}
