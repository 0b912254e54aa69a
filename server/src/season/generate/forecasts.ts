import { DateTime } from 'luxon';
import { MAX_LEAD_DAYS, type IssuedDay } from '../forecast-file';
import type { WthDay } from '../wth';
import { seededStream } from './seeded-random';

/**
 * Issued-forecast generators for season replays (`--forecast-file`), from a
 * station year's measured rain. Every one is a pure function of the days, the
 * range and (for the noisy one) the seed. Issue dates run from 6 days before
 * `from` (so the first replayed day already has a week of forecasts) to `to`;
 * targets are the issue date and the 6 days after it that the file holds.
 * The error model is documented in docs/irrigation.md ("Forecast and gap
 * generators").
 */

export interface GenerateRange {
  from: string;
  to: string;
}

/** The noisy forecast's skill by lead L (days, 0..6). */
export interface SkillModel {
  /** A measured day at or above this is wet; below it (or unknown) is dry. */
  wet_mm: number;
  /** P(rain forecast | wet day) = hit0 - hitPerLead x L. */
  hit0: number;
  hitPerLead: number;
  /** P(rain forecast | dry day) = falseAlarm0 + falseAlarmPerLead x L. */
  falseAlarm0: number;
  falseAlarmPerLead: number;
  /** Log-normal amount error of a hit: sigma = sigma0 + sigmaPerLead x L, mean-preserving. */
  sigma0: number;
  sigmaPerLead: number;
  /** Share of the amount error the leads of one target day share (the same storm, seen earlier). */
  sharedError: number;
  /** Mean of a false alarm's amount, mm (exponential). */
  falseAlarmMeanMm: number;
  /** Probability of precipitation written with a hit, a false alarm, a miss and a correct dry day (minus perLead x L for the first two). */
  hitProbability: number;
  falseAlarmProbability: number;
  probabilityPerLead: number;
  missProbability: number;
  dryProbability: number;
}

export const REALISTIC_SKILL: SkillModel = {
  wet_mm: 1,
  hit0: 0.85,
  hitPerLead: 0.05,
  falseAlarm0: 0.1,
  falseAlarmPerLead: 0.02,
  sigma0: 0.4,
  sigmaPerLead: 0.08,
  sharedError: 0.6,
  falseAlarmMeanMm: 4,
  hitProbability: 80,
  falseAlarmProbability: 55,
  probabilityPerLead: 4,
  missProbability: 20,
  dryProbability: 10,
};

/** The file's own rain and temperatures as the forecast: rain certain when it fell, 0 % when it did not (null stays null). */
export function perfectForecast(days: readonly WthDay[], range: GenerateRange): IssuedDay[] {
  return eachIssue(days, range, (issued, target, day) => ({
    issued,
    target,
    precip_mm: day.rain_mm,
    precip_probability: day.rain_mm === null ? null : day.rain_mm > 0 ? 100 : 0,
    // A model forecasts temperatures every day: they do not go missing with a station sensor.
    tmax_c: day.tmax_c,
    tmin_c: day.tmin_c,
  }));
}

/**
 * A realistic forecast (REALISTIC_SKILL by default). Per target day three
 * latent draws decide it at every lead, so a storm seen 5 days out is also
 * seen 2 days out: detection u (a wet day is forecast at lead L when u <
 * hit(L)), a false alarm v (a dry day gets rain at lead L when v <
 * falseAlarm(L)), and the shared part of the amount error z; each issue adds
 * its own part e. A hit forecasts measured x exp(sigma(L)(s z + sqrt(1 - s^2) e) - sigma(L)^2/2).
 */
export function noisyForecast(
  days: readonly WthDay[],
  range: GenerateRange,
  seed: number,
  model: SkillModel = REALISTIC_SKILL,
): IssuedDay[] {
  const latent = new Map<string, { u: number; v: number; z: number; size: number }>();
  const latentOf = (target: string) => {
    let l = latent.get(target);
    if (!l) {
      const s = seededStream(seed, `target:${target}`);
      l = { u: s.uniform(), v: s.uniform(), z: s.normal(), size: -Math.log(1 - s.uniform()) };
      latent.set(target, l);
    }
    return l;
  };
  return eachIssue(days, range, (issued, target, day, lead) => {
    const { u, v, z, size } = latentOf(target);
    const e = seededStream(seed, `issue:${issued}:${target}`).normal();
    const wet = day.rain_mm !== null && day.rain_mm >= model.wet_mm;
    const line = (precip_mm: number, precip_probability: number): IssuedDay => ({
      issued,
      target,
      precip_mm: Math.round(precip_mm * 10) / 10,
      precip_probability: Math.max(0, Math.min(100, Math.round(precip_probability))),
    });
    if (wet) {
      if (u >= model.hit0 - model.hitPerLead * lead) return line(0, model.missProbability);
      const sigma = model.sigma0 + model.sigmaPerLead * lead;
      const s = model.sharedError;
      const error = sigma * (s * z + Math.sqrt(1 - s * s) * e) - (sigma * sigma) / 2;
      return line(
        (day.rain_mm as number) * Math.exp(error),
        model.hitProbability - model.probabilityPerLead * lead,
      );
    }
    if (v < model.falseAlarm0 + model.falseAlarmPerLead * lead)
      return line(
        Math.max(model.wet_mm, model.falseAlarmMeanMm * size),
        model.falseAlarmProbability - model.probabilityPerLead * lead,
      );
    return line(0, model.dryProbability);
  });
}

/** Rain promised every day at every lead (the demo's 14 mm at 80 %); pair it with a dry year (dryWeather). */
export function falseAlarmForecast(
  days: readonly WthDay[],
  range: GenerateRange,
  precipMm = 14,
  probability = 80,
): IssuedDay[] {
  return eachIssue(days, range, (issued, target) => ({
    issued,
    target,
    precip_mm: precipMm,
    precip_probability: probability,
  }));
}

/** The provider unreachable for `days` days from `from`: nothing issued on them. */
export function withOutage(lines: readonly IssuedDay[], from: string, days: number): IssuedDay[] {
  const end = DateTime.fromISO(from, { zone: 'UTC' }).plus({ days }).toISODate() as string;
  return lines.filter((l) => l.issued < from || l.issued >= end);
}

function eachIssue(
  days: readonly WthDay[],
  range: GenerateRange,
  make: (issued: string, target: string, day: WthDay, lead: number) => IssuedDay,
): IssuedDay[] {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const out: IssuedDay[] = [];
  const last = DateTime.fromISO(range.to, { zone: 'UTC' });
  for (
    let issue = DateTime.fromISO(range.from, { zone: 'UTC' }).minus({ days: MAX_LEAD_DAYS });
    issue <= last;
    issue = issue.plus({ days: 1 })
  ) {
    const issued = issue.toISODate() as string;
    for (let lead = 0; lead <= MAX_LEAD_DAYS; lead++) {
      const target = issue.plus({ days: lead }).toISODate() as string;
      const day = byDate.get(target);
      if (day) out.push(make(issued, target, day, lead));
    }
  }
  return out;
}
