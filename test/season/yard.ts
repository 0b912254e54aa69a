import { SOIL_CATALOG, type SoilTexture } from '../../server/src/agronomy/catalogs/soil';
import { monthlyKc, type Species } from '../../server/src/agronomy/catalogs/species';
import type { RunMeter } from '../../server/src/irrigation/dispatch/dispatcher';
import { monthOf } from '../../server/src/irrigation/engine/et0-days';
import { localCalendar } from '../../server/src/irrigation/skip/local-days';
import { dailyIrrigation } from '../../server/src/irrigation/soil/irrigation-evidence';
import { penmanMonteith, type Site } from '../../server/src/season/score/reference';
import type { WthDay } from '../../server/src/season/wth';
import type { Store } from '../../server/src/store/store';

/**
 * The yard as it really is, for season replays whose config is deliberately
 * off: the instruments a real yard would have, reading the truth rather
 * than the config.
 *
 * - `yardMeter`: a flow meter on each metered zone. The heads' real
 *   precipitation rate over the zone's area is a flow (gal/min); each run
 *   reads it with a small deterministic wobble (+-2 %), as a real meter's
 *   pulses do.
 * - `yardProbe`: a soil probe per probed zone reading the volumetric water
 *   content (%) of a root zone that follows FAO-56 with the TRUE root depth,
 *   texture and allowed depletion: each night the day's rain (all of it: no
 *   runoff) and the water the zone's runs really put down (open seconds from
 *   the run ledger x the true rate x the capture efficiency) go in, and the
 *   crop draws Ks x Kc x ET0 (the reference's own Penman-Monteith), x the
 *   sun factor. The reading is field capacity - depletion / root depth,
 *   at 0.1 %. Its calibration (the reading at field capacity and at the
 *   true refill point) is what a careful owner would set.
 */

const LITRES_PER_GALLON = 3.785411784;
const SQ_M_PER_SQ_FT = 0.09290304;

export interface MeteredTruth {
  precip_rate_mm_hr: number;
  area_sqft: number;
}

export function yardMeter(zones: Record<string, MeteredTruth>): RunMeter {
  return {
    measure(zone, _controller, from, to) {
      const truth = zones[zone];
      if (!truth || to <= from) return null;
      const gpm = (truth.precip_rate_mm_hr * truth.area_sqft * SQ_M_PER_SQ_FT) / (60 * LITRES_PER_GALLON);
      const read = gpm * (1 + 0.02 * Math.sin(from / 997));
      return { volume_gal: (read * (to - from)) / 60, mean_flow_gpm: read };
    },
  };
}

export interface ProbedTruth {
  /** The zone's soil_sensor_id is `source:<source_id>:<field>`. */
  source_id: string;
  field: string;
  species: Species;
  texture: SoilTexture;
  root_depth_mm: number;
  /** Allowed depletion, fraction. */
  mad: number;
  sun_factor: number;
  precip_rate_mm_hr: number;
}

/** What the owner sets on the zone for the probe: its channel and its two calibration points. */
export function probeCalibration(truth: ProbedTruth): {
  soil_sensor_id: string;
  saturation_pct_soil: number;
  target_min_pct_soil: number;
} {
  const soil = SOIL_CATALOG[truth.texture];
  const fc = soil.field_capacity * 100;
  const span = truth.mad * (soil.field_capacity - soil.wilting_point) * 100;
  return {
    soil_sensor_id: `source:${truth.source_id}:${truth.field}`,
    saturation_pct_soil: round1(fc),
    target_min_pct_soil: round1(fc - span),
  };
}

export interface YardProbeOptions {
  zones: Record<string, ProbedTruth>;
  weather: readonly WthDay[];
  site: Site;
  timezone: string;
  captureEfficiency: number;
}

/** The replay's `atDayStart`: advances each probed root zone through yesterday and writes tonight's reading. */
export function yardProbe(
  options: YardProbeOptions,
): (day: { date: string; epoch: number; store: Store }) => void {
  const byDate = new Map(options.weather.map((w) => [w.date, w]));
  const depletion = new Map<string, number>();
  return ({ date, epoch, store }) => {
    const cal = localCalendar(options.timezone, epoch);
    const yesterday = cal.addDays(date, -1);
    for (const [zone, truth] of Object.entries(options.zones)) {
      const soil = SOIL_CATALOG[truth.texture];
      const taw = (soil.field_capacity - soil.wilting_point) * truth.root_depth_mm;
      const raw = truth.mad * taw;
      let d = depletion.get(zone);
      if (d === undefined) {
        d = 0; // the replay starts on a soaked root zone
      } else {
        const w = byDate.get(yesterday);
        const runs = store.runs.listWindow(cal.dayStart(yesterday), cal.dayEnd(yesterday), zone);
        const seconds = dailyIrrigation(zone, runs, cal).get(yesterday)?.seconds ?? 0;
        const irrigation = (seconds / 3600) * truth.precip_rate_mm_hr * options.captureEfficiency;
        d = Math.max(0, d - Math.max(0, w?.rain_mm ?? 0) - irrigation);
        const ks = d <= raw ? 1 : Math.max(0, (taw - d) / (taw - raw));
        const et0 = w ? (penmanMonteith(w, yesterday, options.site) ?? 0) : 0;
        const kc = monthlyKc(truth.species, monthOf(yesterday), options.site.latitude_deg);
        d = Math.min(taw, d + ks * kc * truth.sun_factor * et0);
      }
      depletion.set(zone, d);
      const reading = soil.field_capacity * 100 - (d / truth.root_depth_mm) * 100;
      store.readings.insertMany([
        { epoch, source_id: truth.source_id, field: truth.field, value: round1(reading) },
      ]);
    }
  };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
