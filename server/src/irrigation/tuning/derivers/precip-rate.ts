import { resolvePrecipRate } from '../../../agronomy/catalogs/sprinklers';
import { unionIntervals } from '../../engine/applied-water';
import { localDateOf } from '../../schedule/local-date';
import type { MeteredRun, ZoneEvidence } from '../evidence';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { median, round } from '../stats';

/**
 * `precip_rate_mm_hr` (companion `precip_rate_source = measured`): what the
 * heads really put down, from a flow meter's volumes over the zone's area.
 *
 *   depth rate (mm/h) = flow (gal/min) x 3.785 L/gal x 60 min/h / area (m2)
 *
 * One sample per watering session (its rows are one job: the request row,
 * the observer's row and cycle segments measure the same flow), from each
 * row's mean metered flow, else its volume over its open time; rows open
 * under a minute are too short to measure. The zone's rate is the median of
 * its sessions. It is suggested when at least MIN_SESSIONS sessions were
 * metered, at least AGREE_SHARE of them lie within AGREE_PCT of the median
 * (a flow that wanders is a leak or a clog for the flow alarms, not a rate),
 * and the median differs from the rate in force (the zone's, else its
 * sprinkler type's catalog rate) by more than CHANGE_PCT. The value is
 * rounded to 0.5 mm/h so new sessions that agree keep the same id.
 */

export const MIN_SESSIONS = 5;
export const AGREE_PCT = 10;
export const AGREE_SHARE = 0.8;
export const CHANGE_PCT = 10;
const MIN_OPEN_S = 60;
const LITRES_PER_GALLON = 3.785411784;
const SQ_M_PER_SQ_FT = 0.09290304;
const EVIDENCE_SESSIONS = 8;

interface SessionRate {
  date: string;
  session: string | null;
  open_s: number;
  gpm: number;
  mm_hr: number;
}

export const precipRateDeriver: Deriver = {
  field: 'precip_rate_mm_hr',
  derive(evidence: ZoneEvidence): Derivation {
    const days = evidence.window.days;
    if (evidence.meteredRuns.length === 0) {
      return waiting(
        'metered run volumes from a flow meter',
        'Sprinkler rate: waiting for metered run volumes from a flow meter.',
      );
    }
    const area = evidence.zone.area_sqft ?? null;
    if (!area || area <= 0) {
      return waiting(
        "the zone's area",
        'Sprinkler rate: metered runs are recorded, but the zone has no area_sqft to turn their volume into a depth.',
      );
    }
    const sessions = sessionRates(evidence.meteredRuns, area, evidence.window.timezone);
    if (sessions.length < MIN_SESSIONS) {
      return waiting(
        'metered sessions',
        `Sprinkler rate: ${sessions.length} metered session(s) in the last ${days} days; at least ${MIN_SESSIONS} are needed.`,
      );
    }
    const measured = median(sessions.map((s) => s.mm_hr));
    const agreeing = sessions.filter((s) => Math.abs(s.mm_hr / measured - 1) * 100 <= AGREE_PCT);
    const rates = sessions.map((s) => s.mm_hr);
    const spread = `${round(Math.min(...rates), 1)}..${round(Math.max(...rates), 1)} mm/h`;
    const share = `${agreeing.length} of ${sessions.length} metered sessions in the last ${days} days`;
    if (agreeing.length < AGREE_SHARE * sessions.length) {
      return waiting(
        'metered sessions that agree',
        `Sprinkler rate: ${share} lie within ${AGREE_PCT} % of their median ${round(measured, 1)} mm/h ` +
          `(range ${spread}); the flow varies too much to measure the rate (see the flow alarms).`,
      );
    }
    const current = currentRate(evidence);
    const suggested = Math.max(0.5, Math.round(measured * 2) / 2);
    const summary =
      `${share} measure ${round(measured, 1)} mm/h over the zone's ${area} sq ft ` +
      `(median flow ${round(median(sessions.map((s) => s.gpm)), 2)} gal/min; range ${spread})`;
    if (current !== null && Math.abs(measured / current.rate - 1) * 100 <= CHANGE_PCT) {
      return {
        outcome: 'ok',
        line: `Sprinkler rate: ${summary}, within ${CHANGE_PCT} % of the ${current.rate} mm/h in use.`,
      };
    }
    const against = current ? `the ${current.rate} mm/h ${current.label}` : 'no configured rate';
    return {
      outcome: 'suggest',
      line: `Sprinkler rate: ${summary}, against ${against}.`,
      suggestion: {
        field: 'precip_rate_mm_hr',
        current_value: evidence.zone.precip_rate_mm_hr ?? null,
        suggested_value: suggested,
        companion_fields: [{ field: 'precip_rate_source', value: 'measured' }],
        headline:
          `Set the sprinkler rate to the measured ${suggested} mm/h` +
          (current ? ` (${current.label} ${current.rate} mm/h): ${summary}.` : `: ${summary}.`),
        evidence: [
          `${summary}.`,
          ...(current
            ? [
                `Run lengths assume ${current.rate} mm/h (${current.label}); the meter says the heads put down ` +
                  `${round((measured / current.rate) * 100, 0)} % of that.`,
              ]
            : []),
          ...sessions.slice(-EVIDENCE_SESSIONS).map(sessionLine),
        ],
        confidence: confidenceOf(sessions.length, agreeing.length),
      },
    };
  },
};

function waiting(what: string, line: string): Derivation {
  return { outcome: 'insufficient', waiting_for: what, line };
}

/** The rate in force: the zone's own, else its sprinkler type's catalog rate; null with neither. */
function currentRate(evidence: ZoneEvidence): { rate: number; label: string } | null {
  const own = evidence.zone.precip_rate_mm_hr ?? null;
  if (own !== null) {
    return {
      rate: own,
      label: evidence.zone.precip_rate_source === 'measured' ? 'measured before' : 'configured',
    };
  }
  const type = evidence.zone.sprinkler_type ?? null;
  return type
    ? { rate: resolvePrecipRate(type, null).precip_rate_mm_hr, label: `${type} catalog rate` }
    : null;
}

/** One rate per session (a row without a session is its own). */
function sessionRates(runs: readonly MeteredRun[], areaSqft: number, timezone: string): SessionRate[] {
  const bySession = new Map<string, MeteredRun[]>();
  runs.forEach((run, i) => {
    if (run.duration_s < MIN_OPEN_S) return;
    const key = run.session_id ?? `row:${i}`;
    bySession.set(key, [...(bySession.get(key) ?? []), run]);
  });
  const areaM2 = areaSqft * SQ_M_PER_SQ_FT;
  return [...bySession.values()].map((rows) => {
    const gpm = rows.reduce((total, r) => total + flowOf(r), 0) / rows.length;
    const open = unionIntervals(rows.map((r) => [r.start_epoch, r.start_epoch + r.duration_s] as const));
    return {
      date: localDateOf(Math.min(...rows.map((r) => r.start_epoch)), timezone),
      session: rows[0]?.session_id ?? null,
      open_s: open.reduce((total, [a, b]) => total + (b - a), 0),
      gpm,
      mm_hr: (gpm * LITRES_PER_GALLON * 60) / areaM2,
    };
  });
}

function flowOf(run: MeteredRun): number {
  return run.mean_flow_gpm ?? run.volume_gal / (run.duration_s / 60);
}

function sessionLine(s: SessionRate): string {
  return (
    `${s.date}: ${round(s.gpm, 2)} gal/min metered over ${Math.round(s.open_s / 60)} min = ` +
    `${round(s.mm_hr, 1)} mm/h${s.session ? ` (session ${s.session})` : ''}.`
  );
}

function confidenceOf(sessions: number, agreeing: number): Confidence {
  if (sessions >= 8 && agreeing === sessions) return 'high';
  if (agreeing / sessions >= 0.9) return 'medium';
  return 'low';
}
