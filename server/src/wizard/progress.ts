import { isPlainObject, type JsonObject, type JsonValue } from '../config/json-walk';

/**
 * GET /wizard/state's `steps`: the wizard's pages in order, each done or not,
 * read from the draft when one exists, else from the live config. They are
 * progress hints, not requirements (zero sources, controllers and zones are a
 * valid config):
 *
 * - `location`: deployment.location has numeric lat and lon.
 * - `sources`: at least one weather source.
 * - `controllers`: at least one controller.
 * - `zones`: at least one zone.
 * - `account`: the owner account exists.
 * - `apply`: a config is present and no draft is pending.
 */

export const WIZARD_STEPS = ['location', 'sources', 'controllers', 'zones', 'account', 'apply'] as const;
export type WizardStepId = (typeof WIZARD_STEPS)[number];

export interface WizardStep {
  id: WizardStepId;
  done: boolean;
}

export interface ProgressFacts {
  /** The draft if present, else the live config document, else null. */
  document: JsonObject | null;
  configPresent: boolean;
  draftPresent: boolean;
  setupComplete: boolean;
}

export function wizardSteps(facts: ProgressFacts): WizardStep[] {
  const doc = facts.document ?? {};
  const location = objectAt(objectAt(doc.deployment).location);
  const done: Record<WizardStepId, boolean> = {
    location: typeof location.lat === 'number' && typeof location.lon === 'number',
    sources: nonEmptyArray(doc.sources),
    controllers: nonEmptyArray(doc.controllers),
    zones: Object.keys(objectAt(doc.zones)).length > 0,
    account: facts.setupComplete,
    apply: facts.configPresent && !facts.draftPresent,
  };
  return WIZARD_STEPS.map((id) => ({ id, done: done[id] }));
}

function objectAt(value: JsonValue | undefined): JsonObject {
  return isPlainObject(value) ? value : {};
}

function nonEmptyArray(value: JsonValue | undefined): boolean {
  return Array.isArray(value) && value.length > 0;
}
