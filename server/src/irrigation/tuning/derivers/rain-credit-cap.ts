import { MM_PER_INCH } from '../../../agronomy/catalogs/units';
import type { SoilLedgerDay, ZoneEvidence } from '../evidence';
import { numberBand } from '../fields';
import { probeCurves, soilModelWait, type ProbeCurves, type ProbePair } from '../probe-curves';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { ceilTo, round } from '../stats';

/**
 * `rain_credit_cap_in` (0.05..5.0 in; null = derived from TAW) from the soil
 * ledger, and from a bound probe once its drying curve agrees with the model
 * (scale within 15 % of 1; probe-curves.ts).
 *
 * - Raise: the zone's own cap bound on a rain day while the root zone had
 *   room for more (room = the day's start depletion less that day's
 *   irrigation): the ledger discarded rain the soil could take, and the
 *   engine waters for it. Each such day that lost at least 0.5 mm counts,
 *   unless the probe shows the rain beyond the cap did not soak in. With 2
 *   or more, the suggestion is the largest rain the root zone had room for,
 *   rounded up to 0.05 in; at or above TAW the override is cleared (null:
 *   the derived cap, TAW, already credits all of it).
 * - Lower: on 2 or more days of at least 0.25 in of rain without irrigation,
 *   the probe's next morning shows the root zone not refilled and less water
 *   in than credited (by 2 mm and a quarter or more): the rain ran off. The
 *   suggestion is the most the probe saw soak in, rounded up to 0.05 in.
 * A zone whose cap is derived (TAW) never discards rain it had room for, so
 * only the probe can lower it. Rows stored under other soil settings (a
 * different TAW) wait for the ledger's replay.
 */

export const MIN_DAYS = 2;
const LOST_MIN_MM = 0.5;
const HEAVY_RAIN_MM = 0.25 * MM_PER_INCH;
const SHED_MIN_MM = 2;
const SHED_SHARE = 0.25;
const CONFIRM_MM = 1;
const VERIFIED_SCALE = 0.15;

interface CappedDay {
  day: SoilLedgerDay;
  room_mm: number;
  lost_mm: number;
  /** What a verified probe saw enter (null without one). */
  probe_in_mm: number | null;
}

interface ShedDay {
  pair: ProbePair;
  in_mm: number;
}

export const rainCreditCapDeriver: Deriver = {
  field: 'rain_credit_cap_in',
  derive(evidence: ZoneEvidence): Derivation {
    const zone = evidence.resolved;
    const days = evidence.window.days;
    if (!zone.complete) {
      const what = soilModelWait(zone.missing);
      return wait(what, `Rain credit cap: waiting for ${what}.`);
    }
    if (!evidence.soilLedger)
      return wait('the daily soil water ledger', 'Rain credit cap: waiting for the daily soil water ledger.');
    const rows = evidence.soilLedger.filter((d) => Math.abs(d.taw_mm - zone.capacity.taw_mm) <= 0.01);
    const rainy = rows.filter((d) => (d.rain_mm ?? 0) >= 1);
    if (rows.length === 0 && evidence.soilLedger.length > 0) {
      return wait(
        "the soil ledger's replay under the current settings",
        'Rain credit cap: the ledger days on record were computed under other soil settings.',
      );
    }
    if (rainy.length === 0) {
      return wait(
        'rain',
        `Rain credit cap: no rain of 1 mm or more in the last ${days} days to judge it by.`,
      );
    }
    const capMm = zone.rain_cap_mm;
    const capIn = round(capMm / MM_PER_INCH, 2);
    const capWords = zone.rain_cap_inferred
      ? `the derived ${round(capMm, 1)} mm cap (TAW)`
      : `the ${capIn} in cap`;
    const probe = verifiedProbe(evidence);
    const capped = cappedDays(rows, capMm, probe);
    const raise = capped.filter((c) => c.probe_in_mm === null || soakedIn(c));
    const shed = probe ? shedDays(probe, rows) : [];
    if (!zone.rain_cap_inferred && raise.length >= MIN_DAYS && shed.length === 0) {
      return raiseCap(evidence, raise, capIn, capWords);
    }
    if (probe && shed.length >= MIN_DAYS && raise.length === 0) {
      const lowered = lowerCap(evidence, shed, capMm, capWords);
      if (lowered) return lowered;
    }
    const held = capped.length - raise.length;
    const discarded =
      raise.length === 0
        ? 'never discarded rain the root zone had room for'
        : `discarded rain the root zone had room for on ${raise.length} (${MIN_DAYS} are needed to judge it low)`;
    return {
      outcome: 'ok',
      line:
        `Rain credit cap: ${rainy.length} rain day(s) in the last ${days} days; ${capWords} ${discarded}` +
        (held > 0 ? `; on ${held} more the probe shows the rain past the cap did not soak in` : '') +
        (shed.length > 0 ? `; the probe saw rain run off on ${shed.length}` : '') +
        '.',
    };
  },
};

function wait(what: string, line: string): Derivation {
  return { outcome: 'insufficient', waiting_for: what, line };
}

/** Days the zone's current cap bound while the root zone had room for more. */
function cappedDays(rows: readonly SoilLedgerDay[], capMm: number, probe: ProbeCurves | null): CappedDay[] {
  const pairs = new Map((probe?.pairs ?? []).map((p) => [p.date, p]));
  return rows.flatMap((day) => {
    const credited = day.rain_credited_mm;
    if (day.rain_mm === null || credited === null || day.rain_mm <= credited + 0.01) return [];
    if (Math.abs(credited - capMm) > 0.01) return [];
    const room = Math.max(
      0,
      day.start_range_mm[0] - (day.irrigation_seconds > 0 ? day.irrigation_net_mm : 0),
    );
    const lost = Math.min(day.rain_mm, room) - credited;
    if (lost < LOST_MIN_MM) return [];
    const pair = pairs.get(day.date_local);
    const probeIn = pair ? waterIn(pair) : null;
    return [{ day, room_mm: room, lost_mm: lost, probe_in_mm: probeIn }];
  });
}

/** The probe saw at least half of what the cap discarded go in (beyond the credited rain). */
function soakedIn(c: CappedDay): boolean {
  return (c.probe_in_mm as number) >= (c.day.rain_credited_mm ?? 0) + c.lost_mm / 2;
}

/** Heavy rain days the probe shows shedding: root zone not refilled, less in than credited. */
function shedDays(probe: ProbeCurves, rows: readonly SoilLedgerDay[]): ShedDay[] {
  const dates = new Set(rows.map((d) => d.date_local));
  return probe.pairs.flatMap((pair) => {
    if (!dates.has(pair.date) || pair.rain_mm < HEAVY_RAIN_MM || pair.irrigation_net_mm > 0) return [];
    const use = pair.etc_mm ?? pair.etc_potential_mm;
    if (pair.end_mm <= use + CONFIRM_MM) return [];
    const inMm = waterIn(pair);
    const short = pair.rain_credited_mm - inMm;
    return short >= SHED_MIN_MM && short >= SHED_SHARE * pair.rain_credited_mm ? [{ pair, in_mm: inMm }] : [];
  });
}

/** Water that entered on the day, from the probe's two mornings and the day's use. */
function waterIn(pair: ProbePair): number {
  return pair.start_mm - pair.end_mm + (pair.etc_mm ?? pair.etc_potential_mm) - pair.irrigation_net_mm;
}

/** The probe, when its drying curve agrees with the model closely enough to weigh rain with. */
function verifiedProbe(evidence: ZoneEvidence): ProbeCurves | null {
  if (!evidence.zone.soil_sensor_id) return null;
  const reading = probeCurves(evidence);
  if (!reading.ok) return null;
  const c = reading.curves;
  return c.scale !== null && c.cyclesAgree && Math.abs(c.scale - 1) < VERIFIED_SCALE ? c : null;
}

function raiseCap(evidence: ZoneEvidence, days: CappedDay[], capIn: number, capWords: string): Derivation {
  const zone = evidence.resolved as Extract<ZoneEvidence['resolved'], { complete: true }>;
  const need = Math.max(...days.map((d) => Math.min(d.day.rain_mm as number, d.room_mm)));
  const band = numberBand('rain_credit_cap_in');
  const inches = Math.min(band.max, Math.max(band.min, ceilTo(need / MM_PER_INCH, 0.05)));
  const clear = inches * MM_PER_INCH >= zone.capacity.taw_mm;
  const suggested = clear ? null : inches;
  const lost = days.reduce((s, d) => s + d.lost_mm, 0);
  const confirmed = days.filter((d) => d.probe_in_mm !== null).length;
  const target = clear
    ? `clear it (the derived cap, TAW ${round(zone.capacity.taw_mm, 1)} mm, credits all of it)`
    : `raise it to ${inches} in`;
  return {
    outcome: 'suggest',
    line: `Rain credit cap: ${capWords} discarded ${round(lost, 1)} mm of rain the root zone had room for on ${days.length} days.`,
    suggestion: {
      field: 'rain_credit_cap_in',
      current_value: evidence.zone.rain_credit_cap_in ?? null,
      suggested_value: suggested,
      companion_fields: [],
      headline:
        `${clear ? 'Clear' : `Raise to ${inches} in`} the rain credit cap: ${capWords} discarded ` +
        `${round(lost, 1)} mm of rain on ${days.length} days while the root zone had room for it.`,
      evidence: [
        `On ${days.length} rain days in the last ${evidence.window.days} days ${capWords} credited less than the root ` +
          `zone had room for; the largest such rain was ${round(need, 1)} mm: ${target}.`,
        ...(confirmed > 0 ? [`The soil probe saw more than the cap soak in on ${confirmed} of them.`] : []),
        ...days.map(
          (d) =>
            `${d.day.date_local}: ${round(d.day.rain_mm as number, 1)} mm of rain, ${round(d.day.rain_credited_mm as number, 1)} mm ` +
            `credited, the root zone short ${round(d.room_mm, 1)} mm that morning` +
            (d.probe_in_mm !== null ? `; the probe saw ${round(d.probe_in_mm, 1)} mm go in.` : '.'),
        ),
      ],
      confidence: raiseConfidence(days.length, confirmed),
    },
  };
}

function lowerCap(
  evidence: ZoneEvidence,
  days: ShedDay[],
  capMm: number,
  capWords: string,
): Derivation | null {
  const most = Math.max(...days.map((d) => d.in_mm));
  const band = numberBand('rain_credit_cap_in');
  const inches = Math.min(band.max, Math.max(band.min, ceilTo(most / MM_PER_INCH, 0.05)));
  if (inches * MM_PER_INCH >= capMm - CONFIRM_MM) return null;
  return {
    outcome: 'suggest',
    line: `Rain credit cap: on ${days.length} heavy rain days the probe saw at most ${round(most, 1)} mm soak in.`,
    suggestion: {
      field: 'rain_credit_cap_in',
      current_value: evidence.zone.rain_credit_cap_in ?? null,
      suggested_value: inches,
      companion_fields: [],
      headline: `Lower the rain credit cap to ${inches} in: on ${days.length} heavy rain days the probe saw at most ${round(most, 1)} mm soak in, where ${capWords} credited more.`,
      evidence: [
        `The soil probe (its drying curve agrees with the model) saw the root zone left short after ${days.length} heavy ` +
          `rains that ${capWords} credited in full: the rest ran off.`,
        ...days.map(
          (d) =>
            `${d.pair.date}: ${round(d.pair.rain_mm, 1)} mm of rain, ${round(d.pair.rain_credited_mm, 1)} mm credited; ` +
            `the probe went from ${round(d.pair.start_mm, 1)} to ${round(d.pair.end_mm, 1)} mm depletion: ` +
            `${round(d.in_mm, 1)} mm went in.`,
        ),
      ],
      confidence: days.length >= 3 ? 'high' : 'medium',
    },
  };
}

function raiseConfidence(days: number, confirmed: number): Confidence {
  if (confirmed >= 2) return 'high';
  return days >= 3 ? 'medium' : 'low';
}
