import type { ConfigService, SaveResult } from '../../config/config-service';
import type { JsonObject } from '../../config/json-walk';
import { isPlainObject } from '../../config/json-walk';
import { epochSeconds, type Clock } from '../../core/clock';
import type { JsonValue } from '../../store/json';
import type { Store } from '../../store/store';
import type { DismissalKind } from '../../store/tuning-dismissals';
import { buildAccuracyReport } from '../history/accuracy-report';
import { DAY_S } from '../history/window';
import { applyBody, dismissBody, undismissBody } from './bodies';
import { SNOOZE_DAYS } from './dismissals';
import type { TuningEvidenceProviders } from './evidence';
import { clampWindowDays, gatherEvidence, tuningWindow } from './evidence-source';
import { isTunableField, outOfBand, TUNABLE_FIELDS, type TunableField } from './fields';
import type { Recommendation } from './recommendation';
import { SCORECARD_WINDOW_DAYS, scorecardOf, type Scorecard } from './scorecard';
import { TuningError } from './tuning-error';
import { deriveZone, zoneEntry, type ZoneEntry } from './zone-entry';

/**
 * The learning loop's tuning side (spec 2.5 tuning report, 4.4, 4.5): the
 * report, the owner's dismissals, and applying a recommendation to the
 * config. Reads the store; writes the config only through the ConfigService
 * lock, where the recommendation is derived again before anything changes.
 */

export interface TuningReport {
  generated_epoch: number;
  window_days: number;
  zones: ZoneEntry[];
  scorecard: Scorecard;
}

export interface ApplyResult {
  applied: true;
  zone: string;
  field: TunableField;
  old_value: JsonValue;
  new_value: JsonValue;
  saved: SaveResult['saved'];
  validation: SaveResult['validation'];
  restart_required: boolean;
  restart_reasons: string[];
}

export interface TuningServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<ConfigService, 'current' | 'update'>;
  timezone: () => string;
  /** The effective `rain_skip_in`: a day at or above it is wet for the scorecard. */
  rainThresholdIn: () => number;
  /** The hardware's restart hold (spec 2.5 `restart_required`), read after an apply. */
  restartReasons: () => string[];
  providers?: TuningEvidenceProviders;
}

export type SaveWrapper = (run: () => Promise<SaveResult>) => Promise<SaveResult>;

export class TuningService {
  constructor(private readonly deps: TuningServiceDeps) {}

  /** GET /irrigation/tuning: `days` already clamped to 7..30. */
  report(days: number): TuningReport {
    const config = this.config();
    const now = epochSeconds(this.deps.clock);
    const timezone = this.deps.timezone();
    const window = tuningWindow(now, days, timezone);
    const dismissals = this.deps.store.tuningDismissals.all();
    const zones = gatherEvidence(this.deps.store, config, window, this.deps.providers).map((evidence) =>
      zoneEntry(evidence, deriveZone(evidence), dismissals, now),
    );
    return { generated_epoch: now, window_days: days, zones, scorecard: this.scorecard(now, timezone) };
  }

  /** POST /irrigation/tuning/dismiss. */
  dismiss(body: unknown): Record<string, JsonValue> {
    const parsed = dismissBody.safeParse(body);
    if (!parsed.success)
      throw invalidBody('{zone_slug, field, recommendation_id, kind: snooze|permanent}', parsed);
    const { zone_slug, field, recommendation_id, kind } = parsed.data;
    this.knownZone(zone_slug);
    acceptedField(field);
    const now = epochSeconds(this.deps.clock);
    const expires = kind === 'snooze' ? now + SNOOZE_DAYS * DAY_S : null;
    this.deps.store.tuningDismissals.put({
      zone: zone_slug,
      field,
      kind: kind as DismissalKind,
      recommendation_id,
      created_epoch: now,
      expires_epoch: expires,
    });
    return { dismissed: true, zone_slug, field, recommendation_id, kind, expires_epoch: expires };
  }

  /** POST /irrigation/tuning/undismiss: both kinds go for the zone's field. */
  undismiss(body: unknown): { removed: number } {
    const parsed = undismissBody.safeParse(body);
    if (!parsed.success) throw invalidBody('{zone_slug, field}', parsed);
    return { removed: this.deps.store.tuningDismissals.remove(parsed.data.zone_slug, parsed.data.field) };
  }

  /** The recommendations a weekly digest names: those shown, none that are silenced. */
  visibleRecommendations(days: number): { zone: string; recommendation: Recommendation }[] {
    return this.report(days).zones.flatMap((z) =>
      z.recommendation ? [{ zone: z.slug, recommendation: z.recommendation }] : [],
    );
  }

  /**
   * POST /config/zones/apply. The recommendation is derived again at the
   * request's window inside the config write lock; when it no longer derives
   * (new evidence, a changed config, another apply) nothing is written: 409.
   * `write` wraps the save (the config route counts it and maps refusals).
   */
  async apply(body: unknown, write: SaveWrapper = (run) => run()): Promise<ApplyResult> {
    const parsed = applyBody.safeParse(body);
    if (!parsed.success) {
      throw invalidBody('{zone_slug, recommendation_id, field, value, window_days?}', parsed);
    }
    const request = parsed.data;
    const field = acceptedField(request.field);
    const problem = outOfBand(field, request.value);
    if (problem) {
      throw new TuningError(422, 'value_out_of_band', `${problem}; got ${JSON.stringify(request.value)}`, {
        field,
        value: request.value,
      });
    }
    this.knownZone(request.zone_slug);
    const days = clampWindowDays(request.window_days);
    let oldValue: JsonValue = null;
    const save = () =>
      this.deps.config.update(
        (stored) => {
          const recommendation = this.rederive(request.zone_slug, field, request.recommendation_id, days);
          const zone = zoneOf(stored, request.zone_slug);
          oldValue = (zone[field] as JsonValue | undefined) ?? null;
          setField(zone, field, request.value);
          for (const companion of recommendation.companion_fields)
            setField(zone, companion.field, companion.value);
          return stored;
        },
        { note: `before tuning apply ${request.zone_slug}.${field}` },
      );
    const result = await write(save);
    const reasons = this.deps.restartReasons();
    return {
      applied: true,
      zone: request.zone_slug,
      field,
      old_value: oldValue,
      new_value: request.value,
      saved: result.saved,
      validation: result.validation,
      restart_required: reasons.length > 0,
      restart_reasons: reasons,
    };
  }

  /** The zone's suggestion with that id for that field, derived now; 409 when there is none. */
  private rederive(slug: string, field: TunableField, id: string, days: number): Recommendation {
    const config = this.config();
    const now = epochSeconds(this.deps.clock);
    const window = tuningWindow(now, days, this.deps.timezone());
    const evidence = gatherEvidence(this.deps.store, config, window, this.deps.providers).find(
      (e) => e.slug === slug,
    );
    const candidates = evidence ? deriveZone(evidence).candidates : [];
    const match = candidates.find((c) => c.id === id && c.field === field);
    if (match) return match;
    const derivesNow = candidates.find((c) => c.field === field) ?? null;
    throw new TuningError(
      409,
      'stale_recommendation',
      `recommendation ${id} for ${slug}.${field} no longer derives from the last ${days} days of evidence; ` +
        'fetch the tuning report again',
      {
        current: derivesNow
          ? { id: derivesNow.id, field: derivesNow.field, suggested_value: derivesNow.suggested_value }
          : null,
      },
    );
  }

  private scorecard(now: number, timezone: string): Scorecard {
    const accuracy = buildAccuracyReport(this.deps.store, {
      nowEpoch: now,
      days: SCORECARD_WINDOW_DAYS,
      timezone,
      rainThresholdIn: this.deps.rainThresholdIn(),
    });
    return scorecardOf(accuracy.rows, SCORECARD_WINDOW_DAYS);
  }

  private config() {
    const applied = this.deps.config.current;
    if (!applied) throw new TuningError(409, 'config_absent', 'no config yet: there is nothing to tune');
    return applied.config;
  }

  private knownZone(slug: string): void {
    const zones = Object.keys(this.config().zones);
    if (!zones.includes(slug)) {
      throw new TuningError(400, 'zone_unknown', `no zone "${slug}" in the config`, {
        mapped_zones: zones,
        hint: 'use a zone key (slug) from GET /config or the tuning report',
      });
    }
  }
}

function acceptedField(field: string): TunableField {
  if (isTunableField(field)) return field;
  throw new TuningError(
    422,
    'field_not_accepted',
    `${field} cannot be tuned; accepted: ${TUNABLE_FIELDS.join(', ')}`,
    {
      accepted: [...TUNABLE_FIELDS],
    },
  );
}

function invalidBody(
  shape: string,
  parsed: { error: { issues: { path: PropertyKey[]; message: string }[] } },
): TuningError {
  return new TuningError(400, 'invalid_body', `expected ${shape}`, {
    issues: parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`),
  });
}

function zoneOf(doc: JsonObject, slug: string): JsonObject {
  const zones = doc.zones;
  const zone = isPlainObject(zones) ? zones[slug] : undefined;
  if (!isPlainObject(zone))
    throw new TuningError(400, 'zone_unknown', `no zone "${slug}" in the stored config`);
  return zone;
}

/** Null clears the override (spec 2.5): the key goes, so the default applies. */
function setField(zone: JsonObject, field: string, value: JsonValue): void {
  if (value === null) delete zone[field];
  else zone[field] = value;
}
