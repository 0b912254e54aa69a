import { SOIL_CATALOG, type SoilTexture } from '../../../agronomy/catalogs/soil';
import type { ZoneEvidence } from '../evidence';
import { dryingShortfall, probeCurves } from '../probe-curves';
import type { Deriver, Derivation } from '../recommendation';
import { round } from '../stats';
import { stressFit, stressOutcome } from './allowed-depletion';
import { probeWait, waitingForCycles } from './root-depth';

/**
 * `soil_texture` from a bound, calibrated probe's stress curve, when the
 * owner set the allowed depletion (`mad_pct_override`): the stress days
 * place the wilting point (allowed-depletion.ts), so the root zone holds
 * TAW' where the model has TAW, and the soil's available water per metre is
 * the texture's x TAW' / TAW. With the species' default allowed depletion
 * the same curve goes to `mad_pct_override` first.
 *
 * A texture is suggested only when it is the single catalog texture within
 * 10 % of that available water and the current one is 20 % or more away:
 * loam, silt loam, clay loam and clay hold nearly the same water per metre,
 * and the probe cannot tell them apart, so it says so instead of guessing.
 */

const MATCH_SHARE = 0.1;
const CHANGE_SHARE = 0.2;

export const soilTextureDeriver: Deriver = {
  field: 'soil_texture',
  derive(evidence: ZoneEvidence): Derivation {
    const label = 'Soil texture';
    const reading = probeCurves(evidence);
    if (!reading.ok) return probeWait(label, reading);
    const c = reading.curves;
    const short = dryingShortfall(c);
    if (short) return waitingForCycles(label, short);
    const fit = stressFit(c);
    if (fit.outcome !== 'fit') return stressOutcome(label, c, fit);
    const texture = c.zone.soil_texture;
    const held = SOIL_CATALOG[texture].available_water_mm_per_m;
    const seen = (held * fit.taw_mm) / c.taw_mm;
    const words = `the stress curve gives ${round(seen, 0)} mm of available water per metre where ${texture} holds ${held}`;
    if (c.zone.capacity.mad_source !== 'zone') {
      return {
        outcome: 'ok',
        line: `${label}: ${words}; with the species' allowed depletion that is read as the allowed depletion first.`,
      };
    }
    if (Math.abs(seen / held - 1) < CHANGE_SHARE) {
      return { outcome: 'ok', line: `${label}: ${words}; ${texture} fits.` };
    }
    const matches = (Object.keys(SOIL_CATALOG) as SoilTexture[]).filter(
      (t) => Math.abs(SOIL_CATALOG[t].available_water_mm_per_m / seen - 1) <= MATCH_SHARE,
    );
    const match = matches.length === 1 ? (matches[0] as SoilTexture) : null;
    if (!match) {
      return {
        outcome: 'insufficient',
        waiting_for: 'a stress curve that singles out one texture',
        line:
          `${label}: ${words}; ` +
          (matches.length === 0
            ? 'no texture in the catalog holds that.'
            : `${matches.join(', ')} fit equally, so the texture is kept.`),
      };
    }
    return {
      outcome: 'suggest',
      line: `${label}: ${words}; that is ${match} (${SOIL_CATALOG[match].available_water_mm_per_m} mm/m).`,
      suggestion: {
        field: 'soil_texture',
        current_value: evidence.zone.soil_texture ?? null,
        suggested_value: match,
        companion_fields: [],
        headline: `Set the soil texture to ${SOIL_CATALOG[match].label.toLowerCase()}: the probe shows the soil holding ${round(seen, 0)} mm of water per metre, not ${held}.`,
        evidence: [
          `${fit.line}.`,
          `With the root depth (${c.zone.capacity.root_depth_mm} mm) and the allowed depletion set on the zone ` +
            `(${Math.round(c.zone.capacity.mad * 100)} %) held, ${words}: ${match} holds ` +
            `${SOIL_CATALOG[match].available_water_mm_per_m}.`,
          ...fit.days,
        ],
        confidence: fit.count >= 5 ? 'high' : 'medium',
      },
    };
  },
};
