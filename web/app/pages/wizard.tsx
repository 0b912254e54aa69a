import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { api, ApiFailure } from '../lib/api';
import { useAuth } from '../lib/auth';
import { navigate } from '../lib/router';
import { formatDateTime } from '../lib/time';
import { hasErrors, validateNewAccount, type AccountErrors, type NewAccount } from './login/account';
import { AccountFields } from './login/account-fields';
import {
  cloudSourceKind,
  LOCAL_SOURCE_KINDS,
  type CloudSourceEntry,
  type SourceKindInfo,
} from './wizard/catalog';
import { CheckboxField } from './wizard/fields';
import { ControllerStep } from './wizard/controller-step';
import { LocationStep } from './wizard/location-step';
import {
  draftToForm,
  formToDraft,
  preselectDiscovered,
  schemaEnums,
  stepForPath,
  STEP_TITLES,
  validateController,
  validateLocation,
  validateSources,
  soakedDeclarations,
  validateZones,
  validationEntries,
  wizardSteps,
  type Discovery,
  type FieldErrors,
  type JsonObject,
  type SchemaEnums,
  type StepId,
  type ValidationEntry,
  type WizardForm,
} from './wizard/model';
import { ReviewStep } from './wizard/review-step';
import { SourcesStep } from './wizard/sources-step';
import { ZonesStep } from './wizard/zones-step';
import './wizard/wizard.css';

/**
 * The first-run wizard (/setup, spec 4.6): location, weather sources,
 * controller, zones, owner account, review. The draft (the config being
 * built) is saved on the service after every step and resumed on load;
 * Apply validates and writes it as the live config, then the owner account
 * is created and signed in.
 */

interface DraftBody {
  draft: JsonObject | null;
  updated_epoch: number | null;
}
interface WizardState {
  config_present: boolean;
  draft_present: boolean;
  setup_complete: boolean;
}
interface Account extends NewAccount {
  skip: boolean;
}

type Phase =
  | { name: 'loading' }
  | { name: 'failed'; error: unknown }
  | { name: 'choose' }
  | { name: 'edit' }
  | { name: 'applied'; accountError: unknown; creating: boolean };

const STEP_KEY = 'raincheck.wizard.step';

const clock = (epoch: number): string =>
  new Date(epoch * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

function rememberStep(step: StepId | null): void {
  try {
    if (step) localStorage.setItem(STEP_KEY, step);
    else localStorage.removeItem(STEP_KEY);
  } catch {
    /* storage unavailable (private mode): resuming starts at the first step */
  }
}
function rememberedStep(): string | null {
  try {
    return localStorage.getItem(STEP_KEY);
  } catch {
    return null;
  }
}

/** A new setup keeping only where the live one is: its location and units, the default forecast source. */
function scratchFrom(current: JsonObject): JsonObject {
  const deployment = (current.deployment ?? {}) as JsonObject;
  const location = (deployment.location ?? {}) as JsonObject;
  return {
    schema_version: current.schema_version ?? 2,
    deployment: {
      location: { lat: location.lat ?? null, lon: location.lon ?? null },
      units: deployment.units ?? 'imperial',
    },
    sources: [{ id: 'open_meteo', priority: 50, enabled: true, kind: 'open_meteo', config: {} }],
    controllers: [],
    zones: {},
  };
}

export default function WizardPage() {
  const auth = useAuth();
  const needsAccount = !auth.status.setup_complete;
  const steps = wizardSteps(!needsAccount);

  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [form, setForm] = useState<WizardForm | null>(null);
  const [enums, setEnums] = useState<SchemaEnums | null>(null);
  const [cloud, setCloud] = useState<CloudSourceEntry[]>([]);
  const [catalogError, setCatalogError] = useState<unknown>(null);
  const [step, setStep] = useState<StepId>('location');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [accountErrors, setAccountErrors] = useState<AccountErrors>({});
  const [account, setAccount] = useState<Account>({ skip: false, username: '', password: '', confirm: '' });
  const [busy, setBusy] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [savedEpoch, setSavedEpoch] = useState<number | null>(null);
  const [resumed, setResumed] = useState<number | null>(null);
  const [applyError, setApplyError] = useState<unknown>(null);
  const [problems, setProblems] = useState<{ step: StepId | null; message: string; path?: string }[]>([]);
  const [discovery, setDiscovery] = useState<Discovery | null>(null);
  const [scan, setScan] = useState<{ running: boolean; error: unknown }>({ running: false, error: null });
  const scanRunning = useRef(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  const kinds: SourceKindInfo[] = useMemo(
    () => [...cloud.map(cloudSourceKind), ...LOCAL_SOURCE_KINDS],
    [cloud],
  );

  const update = (change: (f: WizardForm) => WizardForm) => setForm((f) => (f ? change(f) : f));

  // The LAN sweep (about 3 s), shared by the sources and controller steps; one at a time.
  const discover = () => {
    if (scanRunning.current) return;
    scanRunning.current = true;
    setScan({ running: true, error: null });
    api<Discovery>('wizard/discover')
      .then((found) => {
        setDiscovery(found);
        // Pre-select what was heard: a Tempest hub becomes a tempest_udp source with its serial.
        update((f) => ({ ...f, sources: preselectDiscovered(f.sources, found) }));
        setScan({ running: false, error: null });
      })
      .catch((error: unknown) => setScan({ running: false, error }))
      .finally(() => {
        scanRunning.current = false;
      });
  };

  const start = async (fresh: boolean) => {
    setPhase({ name: 'loading' });
    try {
      const [state, body, schema, catalog] = await Promise.all([
        api<WizardState>('wizard/state'),
        api<DraftBody>('wizard/draft'),
        api<unknown>('config/schema'),
        api<{ cloud_sources: CloudSourceEntry[] }>('config/source_catalog').catch((error: unknown) => {
          setCatalogError(error);
          return null;
        }),
      ]);
      const cloudList = catalog?.cloud_sources ?? [];
      const sourceKinds = [...cloudList.map(cloudSourceKind), ...LOCAL_SOURCE_KINDS];
      setEnums(schemaEnums(schema));
      setCloud(cloudList);
      if (body.draft && !fresh) {
        setForm(draftToForm(body.draft, sourceKinds));
        setResumed(body.updated_epoch);
        const remembered = rememberedStep();
        setStep(steps.find((s) => s === remembered) ?? 'location');
        setPhase({ name: 'edit' });
        return;
      }
      if (state.config_present && !fresh) {
        setPhase({ name: 'choose' });
        return;
      }
      // First run: the service's baseline (the environment's location, the default forecast source).
      // From scratch over a live config: its location only, the default forecast source, nothing else.
      const current = await api<JsonObject>('config');
      const next = draftToForm(fresh && state.config_present ? scratchFrom(current) : current, sourceKinds);
      if (next.location.lat === '' || next.location.lon === '') {
        const home = await api<{ lat: number | null; lon: number | null; source: string }>('location').catch(
          () => null,
        );
        if (home && home.lat !== null && home.lon !== null && home.source !== 'none') {
          next.location = { ...next.location, lat: String(home.lat), lon: String(home.lon) };
        }
      }
      setForm(next);
      setResumed(null);
      setStep('location');
      setPhase({ name: 'edit' });
    } catch (error) {
      setPhase({ name: 'failed', error });
    }
  };

  useEffect(() => {
    void start(false);
  }, []);

  // After a step change, the step's heading takes focus (screen readers hear where they are).
  useEffect(() => {
    if (moved.current) headingRef.current?.focus();
    moved.current = false;
  }, [step]);

  const sourceKinds = kinds;

  const validate = (id: StepId, f: WizardForm): FieldErrors => {
    switch (id) {
      case 'location':
        return validateLocation(f.location);
      case 'sources':
        return validateSources(f, sourceKinds);
      case 'controller':
        return validateController(f.controller);
      case 'zones':
        return validateZones(f.zones, f.controller.kind);
      default:
        return {};
    }
  };

  const validateAccount = (): AccountErrors => (account.skip ? {} : validateNewAccount(account));

  // A shown error goes away as soon as its field is fixed (new errors wait for the next Next).
  useEffect(() => {
    if (!form || Object.keys(errors).length === 0) return;
    const now = validate(step, form);
    const still = Object.keys(errors).filter((key) => now[key] !== undefined);
    if (still.length !== Object.keys(errors).length)
      setErrors(Object.fromEntries(still.map((key) => [key, now[key] as string])));
  }, [form]);
  useEffect(() => {
    const keys = Object.keys(accountErrors) as (keyof AccountErrors)[];
    if (keys.length === 0) return;
    const now = account.skip ? {} : validateNewAccount(account);
    const still = keys.filter((key) => now[key] !== undefined);
    if (still.length !== keys.length)
      setAccountErrors(Object.fromEntries(still.map((key) => [key, now[key]])));
  }, [account]);

  const save = async (f: WizardForm): Promise<boolean> => {
    setBusy('Saving the draft…');
    setSaveError(null);
    try {
      const body = await api<DraftBody>('wizard/draft', { method: 'PUT', json: formToDraft(f, sourceKinds) });
      setSavedEpoch(body.updated_epoch);
      return true;
    } catch (error) {
      setSaveError(error);
      return false;
    } finally {
      setBusy(null);
    }
  };

  const focusFirstError = () =>
    setTimeout(() => {
      const invalid = document.querySelector<HTMLElement>('.wz-body [aria-invalid="true"]');
      invalid?.focus();
    }, 0);

  const go = async (target: StepId, check: boolean) => {
    if (!form) return;
    if (check) {
      if (step === 'account') {
        const found = validateAccount();
        setAccountErrors(found);
        if (hasErrors(found)) return focusFirstError();
      } else {
        const found = validate(step, form);
        setErrors(found);
        if (hasErrors(found)) return focusFirstError();
      }
    }
    const saved = await save(form);
    if (!saved && check) return;
    setErrors({});
    setApplyError(null);
    setProblems([]);
    moved.current = true;
    setStep(target);
    rememberStep(target);
    window.scrollTo(0, 0);
  };

  const index = steps.indexOf(step);
  const next = () => {
    const target = steps[index + 1];
    if (target) void go(target, true);
  };
  const back = () => {
    const target = steps[index - 1];
    if (target) void go(target, false);
  };

  const startOver = async () => {
    if (!window.confirm('Discard this draft and start over?')) return;
    setBusy('Discarding the draft…');
    try {
      await api('wizard/draft', { method: 'DELETE' });
      rememberStep(null);
      setDiscovery(null);
      setScan((current) => ({ ...current, error: null }));
      setSavedEpoch(null);
      await start(false);
    } catch (error) {
      setSaveError(error);
    } finally {
      setBusy(null);
    }
  };

  const seed = async () => {
    setBusy('Loading the current setup…');
    try {
      const body = await api<DraftBody>('wizard/seed_current', { method: 'POST' });
      if (body.draft) setForm(draftToForm(body.draft, sourceKinds));
      setResumed(null);
      setSavedEpoch(body.updated_epoch);
      setStep('location');
      setPhase({ name: 'edit' });
    } catch (error) {
      setSaveError(error);
    } finally {
      setBusy(null);
    }
  };

  const signInOwner = async () => {
    setPhase({ name: 'applied', accountError: null, creating: true });
    try {
      await api('auth/setup', {
        method: 'POST',
        json: { username: account.username.trim(), password: account.password },
      });
      // auth/setup already sets a session; signing in again makes sure this browser holds one.
      await api('auth/login', {
        method: 'POST',
        json: { username: account.username.trim(), password: account.password },
      });
      await auth.reload();
      await declareSoaked();
      navigate('', true);
    } catch (error) {
      setPhase({ name: 'applied', accountError: error, creating: false });
    }
  };

  /** The zones' "last soaked" dates, posted as the owner's declarations once the config exists. */
  const declareSoaked = async () => {
    for (const { zone, date } of form ? soakedDeclarations(form) : []) {
      // Best effort: the zone page offers the same declaration if this one does not land.
      await api('irrigation/action', {
        method: 'POST',
        json: { kind: 'declare_soil_state', zone, state: 'soaked', date },
      }).catch(() => undefined);
    }
  };

  const apply = async (allowKeyChange = false) => {
    if (!form) return;
    // Everything the browser can check, before anything is written.
    const found: { step: StepId | null; message: string }[] = [];
    for (const s of steps) {
      if (s === 'review') continue;
      const messages = s === 'account' ? Object.values(validateAccount()) : Object.values(validate(s, form));
      for (const message of messages) if (message) found.push({ step: s, message });
    }
    setProblems(found);
    setApplyError(null);
    if (found.length > 0) return;
    if (!(await save(form))) return;
    setBusy('Applying…');
    try {
      await api('wizard/apply' + (allowKeyChange ? '?allow_zone_key_change=1' : ''), { method: 'POST' });
    } catch (error) {
      setApplyError(error);
      if (error instanceof ApiFailure)
        setProblems(
          validationEntries(error.body).map((e: ValidationEntry) => ({
            step: stepForPath(e.path),
            message: e.message,
            path: e.path,
          })),
        );
      setBusy(null);
      return;
    }
    setBusy(null);
    rememberStep(null);
    if (needsAccount && !account.skip) {
      await signInOwner();
    } else {
      setPhase({ name: 'applied', accountError: null, creating: false });
      await auth.reload();
      await declareSoaked();
      navigate('', true);
    }
  };

  // ------------------------------------------------------------------ render

  if (phase.name === 'loading')
    return (
      <section class="wz">
        <h1>Set up Raincheck</h1>
        <p class="loading" aria-busy="true">
          Loading…
        </p>
      </section>
    );

  if (phase.name === 'failed')
    return (
      <section class="wz">
        <h1>Set up Raincheck</h1>
        <ErrorNotice error={phase.error} title="The setup could not be loaded" />
        <button type="button" onClick={() => void start(false)}>
          Try again
        </button>
      </section>
    );

  if (phase.name === 'choose')
    return (
      <section class="wz">
        <h1>Set up Raincheck</h1>
        <div class="card wz-choose">
          <h2>Raincheck is already set up</h2>
          <p>
            You can walk through the setup again with the current configuration filled in: nothing changes
            until you press Apply on the last page.
          </p>
          <div class="row">
            <button type="button" class="primary" onClick={() => void seed()} disabled={busy !== null}>
              Edit the current setup
            </button>
            <button type="button" onClick={() => void start(true)} disabled={busy !== null}>
              Start from scratch
            </button>
            <a href="./" data-route="">
              Back to the dashboard
            </a>
          </div>
          <p class="help">
            Start from scratch replaces the whole configuration (zones included) when applied.
          </p>
          {saveError ? <ErrorNotice error={saveError} /> : null}
        </div>
      </section>
    );

  if (phase.name === 'applied')
    return (
      <section class="wz">
        <h1>Set up Raincheck</h1>
        <div class="card wz-done">
          <p role="status" class="wz-done-title">
            Setup complete
          </p>
          <p class="muted">The configuration is saved and running.</p>
          {phase.creating && <p aria-busy="true">Creating the owner account and signing in…</p>}
          {phase.accountError ? (
            <div>
              <ErrorNotice error={phase.accountError} title="The owner account could not be created" />
              <AccountFields
                idPrefix="wz-retry"
                value={account}
                errors={accountErrors}
                onChange={(v) => setAccount({ ...account, ...v })}
              />
              <div class="row">
                <button
                  type="button"
                  class="primary"
                  onClick={() => {
                    const found = validateNewAccount(account);
                    setAccountErrors(found);
                    if (!hasErrors(found)) void signInOwner();
                  }}
                >
                  Create account
                </button>
                <a href="./" data-route="">
                  Continue without an account
                </a>
              </div>
            </div>
          ) : null}
        </div>
      </section>
    );

  if (!form || !enums) return null;

  const last = step === 'review';
  return (
    <section class="wz">
      <div class="spread wz-top">
        <h1>Set up Raincheck</h1>
        <div class="row wz-draft-state">
          <span class="muted" aria-live="polite">
            {busy ??
              (savedEpoch !== null
                ? `Draft saved at ${clock(savedEpoch)}`
                : resumed !== null
                  ? `Resumed the draft saved ${formatDateTime(resumed)}`
                  : 'Nothing saved yet')}
          </span>
          <button type="button" class="wz-link" onClick={() => void startOver()} disabled={busy !== null}>
            Start over
          </button>
        </div>
      </div>

      <nav aria-label="Setup steps" class="wz-steps">
        <ol>
          {steps.map((s, i) => (
            <li key={s} class={i < index ? 'is-done' : i === index ? 'is-current' : ''}>
              <button
                type="button"
                aria-current={s === step ? 'step' : undefined}
                onClick={() => s !== step && void go(s, false)}
                disabled={busy !== null}
              >
                <span class="wz-step-number" aria-hidden="true">
                  {i < index ? '✓' : i + 1}
                </span>
                <span class="wz-step-label">{STEP_TITLES[s]}</span>
              </button>
            </li>
          ))}
        </ol>
      </nav>

      <div class="card wz-body">
        <h2 ref={headingRef} tabIndex={-1}>
          {STEP_TITLES[step]}
        </h2>
        <p class="visually-hidden">
          Step {index + 1} of {steps.length}
        </p>
        {step === 'location' && (
          <LocationStep
            location={form.location}
            units={enums.units}
            errors={errors}
            onChange={(location) => update((f) => ({ ...f, location }))}
          />
        )}
        {step === 'sources' && (
          <SourcesStep
            form={form}
            kinds={kinds}
            catalogError={catalogError}
            errors={errors}
            discovery={discovery}
            scanning={scan.running}
            scanError={scan.error}
            onScan={discover}
            update={update}
          />
        )}
        {step === 'controller' && (
          <ControllerStep
            form={form}
            errors={errors}
            discovery={discovery}
            scanning={scan.running}
            scanError={scan.error}
            onScan={discover}
            update={update}
            checkFields={() => {
              const found = validateController(form.controller);
              setErrors(found);
              if (hasErrors(found)) focusFirstError();
              return !hasErrors(found);
            }}
          />
        )}
        {step === 'zones' && <ZonesStep form={form} enums={enums} errors={errors} update={update} />}
        {step === 'account' && (
          <div class="wz-account">
            <p class="muted">
              Recommended. Creating the owner account switches sign-in on: from then on only you (signed in)
              can see and change Raincheck. It is created when you apply the setup.
            </p>
            <CheckboxField
              id="account.skip"
              label="Skip for now"
              checked={account.skip}
              onChecked={(skip) => {
                setAccount({ ...account, skip });
                setAccountErrors({});
              }}
              help="Without an account sign-in stays off and anyone on your network can change settings and run valves. You can create the account later from the sign-in page."
            />
            {!account.skip && (
              <AccountFields
                idPrefix="wz-account"
                value={account}
                errors={accountErrors}
                onChange={(v) => setAccount({ ...account, ...v })}
              />
            )}
          </div>
        )}
        {step === 'review' && (
          <ReviewStep
            form={form}
            kinds={kinds}
            account={needsAccount ? account : null}
            onEdit={(s) => void go(s, false)}
          />
        )}

        {saveError ? <ErrorNotice error={saveError} title="The draft could not be saved" /> : null}
        {applyError ? <ErrorNotice error={applyError} title="The setup was not applied" /> : null}
        {problems.length > 0 && (
          <div class="notice notice-error wz-problems">
            <p>
              <strong>{applyError ? 'The service found these problems:' : 'Fix these first:'}</strong>
            </p>
            <ul>
              {problems.map((p, i) => (
                <li key={i}>
                  {p.message}
                  {p.path && (
                    <>
                      {' '}
                      <code>{p.path}</code>
                    </>
                  )}
                  {p.step && p.step !== step && (
                    <>
                      {' '}
                      <button type="button" class="wz-link" onClick={() => p.step && void go(p.step, false)}>
                        Go to {STEP_TITLES[p.step]}
                      </button>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </div>
        )}
        {applyError instanceof ApiFailure && applyError.code === 'zone_key_renamed' && (
          <div class="notice notice-warn">
            <p>
              This setup removes a zone and adds another. Their history is kept under the old key but no
              longer shown with the new zone.
            </p>
            <button type="button" onClick={() => void apply(true)} disabled={busy !== null}>
              Replace the zones
            </button>
          </div>
        )}

        <div class="wz-footer">
          <button type="button" onClick={back} disabled={index === 0 || busy !== null}>
            Back
          </button>
          {last ? (
            <button type="button" class="primary" onClick={() => void apply()} disabled={busy !== null}>
              Apply
            </button>
          ) : (
            <button type="button" class="primary" onClick={next} disabled={busy !== null}>
              Next
            </button>
          )}
        </div>
      </div>
    </section>
  );
}
