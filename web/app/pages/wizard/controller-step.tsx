import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { controllerKindInfo } from './catalog';
import { KindFields, SelectField, TextField } from './fields';
import {
  changeControllerKind,
  controllerEntry,
  controllerKindOptions,
  describeControllerTest,
  mergeScannedZones,
  secretStored,
  type ControllerTest,
  type FieldErrors,
  type ScannedZone,
  type WizardForm,
} from './model';

export function ControllerStep(props: {
  form: WizardForm;
  errors: FieldErrors;
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
  const sameKind = controller.original !== null && controller.original.kind === controller.kind;
  const storedConfig = sameKind
    ? ((controller.original?.config ?? null) as Record<string, never> | null)
    : null;

  const reset = () => {
    setResult(null);
    setTestError(null);
    setScanNote(null);
    setScanError(null);
  };

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
