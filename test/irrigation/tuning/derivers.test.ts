import { monthlyKc } from '../../../server/src/agronomy/catalogs/species';
import { recordYard, type YardSpec } from './ledger-history';
import { addDays } from './recorded-history';
import { bucketOf, entry, recordMetered, recordWeather, TODAY, tuningRigs } from './tuning-rig';

/**
 * Each evidence-backed deriver over recorded history in a real store: a
 * suggestion from its evidence (direction and value), and what it says when
 * the evidence does not support one. The soil ledger's rows come from a
 * yard whose truth the test chooses (ledger-history.ts).
 */

const rig = tuningRigs();

const PROBE = {
  soil_sensor_id: 'source:eco:soil_moisture_pct:1',
  saturation_pct_soil: 25,
  target_min_pct_soil: 19,
};
const PLOT = {
  display_name: 'Plot',
  species: 'other',
  soil_texture: 'loam',
  precip_rate_mm_hr: 20,
  root_depth_mm: 200,
  ...PROBE,
};
const { taw: TAW, raw: RAW } = bucketOf(PLOT); // 26 mm, 11.7 mm (MAD 45 %)

function yard(extra: Partial<YardSpec> = {}): YardSpec {
  return {
    zone: 'plot',
    today: TODAY,
    days: 30,
    taw: TAW,
    raw: RAW,
    capMm: TAW,
    etc: 3.5,
    probe: true,
    ...extra,
  };
}

describe('root depth from a probe', () => {
  it('suggests twice the depth when the probe dries at half the modelled rate, refills agreeing', async () => {
    const { tuning, store } = await rig({ plot: PLOT });
    recordYard(store, yard({ scale: 0.5 }));
    const plot = entry(tuning.report(30), 'plot');
    expect(plot.recommendation).toMatchObject({
      field: 'root_depth_mm',
      current_value: 200,
      suggested_value: 400,
      companion_fields: [],
    });
    expect(plot.recommendation?.evidence[0]).toMatch(
      /^the probe dried [\d.]+ mm over \d+ drying days in \d+ cycles/,
    );
    expect(plot.recommendation?.evidence).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Refills: the morning after \d+ watering\(s\)/)]),
    );
  });

  it('keeps the depth when the probe agrees with the model', async () => {
    const { tuning, store } = await rig({ plot: PLOT });
    recordYard(store, yard());
    const plot = entry(tuning.report(30), 'plot');
    expect(plot.status).toBe('ok');
    expect(plot.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Root depth: .*\(100 %\); the 200 mm in use \(set on the zone\) fits\.$/),
      ]),
    );
  });

  it('waits for enough drying cycles, and names a probe that is missing or uncalibrated', async () => {
    const { tuning, store } = await rig({
      plot: PLOT,
      bare: { ...PLOT, soil_sensor_id: undefined },
      uncalibrated: { ...PLOT, target_min_pct_soil: undefined },
    });
    recordYard(store, yard({ days: 6, scale: 0.5 }));
    const report = tuning.report(30);
    expect(entry(report, 'plot').lines).toContain(
      "Waiting for the probe's drying cycles: root_depth_mm, mad_pct_override, soil_texture.",
    );
    expect(entry(report, 'plot').recommendation).toBeNull();
    expect(entry(report, 'bare').lines).toContain(
      'Waiting for a bound soil probe: root_depth_mm, mad_pct_override, soil_texture.',
    );
    expect(entry(report, 'uncalibrated').lines).toContain(
      'Waiting for a calibrated soil probe: root_depth_mm, mad_pct_override, soil_texture.',
    );
  });
});

describe('allowed depletion and soil texture from the probe’s stress curve', () => {
  it("suggests the species default's allowed depletion where the crop's stress began", async () => {
    const { tuning, store } = await rig({ plot: PLOT });
    // The probe's refill point is RAW; the crop wilts at RAW / 0.30: it dries slower past RAW than 45 % allows.
    recordYard(store, yard({ trueRaw: RAW, trueTaw: RAW / 0.3, waterAtMm: 1.9 * RAW }));
    const plot = entry(tuning.report(30), 'plot');
    expect(plot.recommendation).toMatchObject({
      field: 'mad_pct_override',
      current_value: null,
      suggested_value: 30,
    });
    expect(plot.recommendation?.evidence[0]).toMatch(/^on \d+ days past the refill point the drying slowed/);
  });

  it('with the allowed depletion set by the owner, suggests the texture that holds what the probe shows', async () => {
    const owner = { ...PLOT, mad_pct_override: 45 };
    const { tuning, store } = await rig({ plot: owner });
    // The root zone holds what sand holds (75 mm/m, not loam's 130): it wilts at 15 mm, not 26.
    recordYard(store, yard({ trueRaw: RAW, trueTaw: (TAW * 75) / 130, waterAtMm: 14.5 }));
    const plot = entry(tuning.report(30), 'plot');
    expect(plot.recommendation).toMatchObject({
      field: 'soil_texture',
      current_value: 'loam',
      suggested_value: 'sand',
    });
    expect(plot.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Allowed depletion: .*, but 45 % is set on the zone; the soil texture is judged/,
        ),
      ]),
    );
  });

  it('keeps a texture the probe cannot single out', async () => {
    const owner = { ...PLOT, soil_texture: 'sand', mad_pct_override: 45 };
    const { taw, raw } = bucketOf(owner);
    const { tuning, store } = await rig({ plot: owner });
    // Loam-like water on a zone configured as sand: loam, sandy loam, silt loam, clay loam and clay all fit.
    recordYard(store, {
      ...yard({ taw, raw, capMm: taw }),
      trueRaw: raw,
      trueTaw: (taw * 130) / 75,
      waterAtMm: raw * 1.9,
      etc: 1.5,
    });
    const plot = entry(tuning.report(30), 'plot');
    expect(plot.recommendation?.field).not.toBe('soil_texture');
    expect(plot.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Soil texture: .* fit equally, so the texture is kept\.$/),
      ]),
    );
  });

  it('waits for the stress curve while the zone is watered at its trigger', async () => {
    const { tuning, store } = await rig({ plot: PLOT });
    recordYard(store, yard());
    expect(entry(tuning.report(30), 'plot').lines).toContain(
      "Waiting for the probe's stress curve: mad_pct_override, soil_texture.",
    );
  });
});

describe('the rain credit cap', () => {
  const RAINS = { [-26]: 10, [-21]: 10, [-16]: 10, [-11]: 10, [-6]: 10 };

  it('raises a cap that discarded rain the root zone had room for; a probe that saw it soak in makes it high', async () => {
    const capped = { ...PLOT, rain_credit_cap_in: 0.1 };
    const { tuning, store } = await rig({ plot: capped, bare: { ...capped, soil_sensor_id: undefined } });
    recordYard(store, yard({ capMm: 2.54, rain: RAINS }));
    recordYard(store, yard({ zone: 'bare', capMm: 2.54, rain: RAINS, probe: false }));
    const report = tuning.report(30);
    const plot = entry(report, 'plot').recommendation;
    expect(plot).toMatchObject({ field: 'rain_credit_cap_in', current_value: 0.1, confidence: 'high' });
    expect(plot?.suggested_value as number).toBeGreaterThan(0.1);
    expect(plot?.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^The soil probe saw more than the cap soak in on \d+ of them\.$/),
      ]),
    );
    const bare = entry(report, 'bare').recommendation;
    expect(bare).toMatchObject({ field: 'rain_credit_cap_in', confidence: 'medium' });
    const dated =
      bare?.evidence.filter((l) => /^\d{4}-\d{2}-\d{2}: 10 mm of rain, 2.5 mm credited/.test(l)) ?? [];
    expect(dated.length).toBeGreaterThanOrEqual(2);
  });

  it('clears the override when the rain the root zone had room for reaches TAW', async () => {
    const bare = { ...PLOT, soil_sensor_id: undefined, rain_credit_cap_in: 0.1 };
    const { tuning, store } = await rig({ bare });
    recordYard(
      store,
      yard({ zone: 'bare', capMm: 2.54, probe: false, waterAtMm: 999, rain: { [-12]: 40, [-5]: 40 } }),
    );
    const rec = entry(tuning.report(30), 'bare').recommendation;
    expect(rec).toMatchObject({ field: 'rain_credit_cap_in', suggested_value: null });
    expect(rec?.headline).toMatch(/^Clear the rain credit cap/);
  });

  it('lowers the cap when a verified probe shows heavy rain running off', async () => {
    const { tuning, store } = await rig({ plot: PLOT });
    recordYard(
      store,
      yard({ rain: { [-27]: 15, [-23]: 15, [-18]: 15, [-14]: 15, [-9]: 15, [-4]: 15 }, runoffAboveMm: 5 }),
    );
    const rec = entry(tuning.report(30), 'plot').recommendation;
    expect(rec).toMatchObject({ field: 'rain_credit_cap_in', current_value: null, suggested_value: 0.2 });
    expect(rec?.evidence[0]).toMatch(
      /^The soil probe \(its drying curve agrees with the model\) saw the root zone left short/,
    );
  });

  it('is fine when no rain was discarded, and waits when it did not rain', async () => {
    const { tuning, store } = await rig({ plot: PLOT, dry: PLOT });
    recordYard(store, yard({ rain: RAINS }));
    recordYard(store, yard({ zone: 'dry' }));
    const report = tuning.report(30);
    expect(entry(report, 'plot').lines).toContain(
      'Rain credit cap: 5 rain day(s) in the last 30 days; the derived 26 mm cap (TAW) never discarded rain the root zone had room for.',
    );
    expect(entry(report, 'dry').lines).toContain(
      'Rain credit cap: no rain of 1 mm or more in the last 30 days to judge it by.',
    );
  });
});

describe('the sprinkler rate from a flow meter', () => {
  const METERED = { display_name: 'Lawn', species: 'tall_fescue', soil_texture: 'loam', area_sqft: 1000 };
  const days = (n: number) => Array.from({ length: n }, (_, i) => addDays(TODAY, -2 - i * 2));

  it('suggests the measured rate against the configured one, stamping it measured', async () => {
    const { tuning, store } = await rig({ lawn: { ...METERED, precip_rate_mm_hr: 25 } });
    days(6).forEach((d, i) => recordMetered(store, 'lawn', d, 15 * (1 + ((i % 3) - 1) * 0.02), 1000));
    const rec = entry(tuning.report(14), 'lawn').recommendation;
    expect(rec).toMatchObject({
      field: 'precip_rate_mm_hr',
      current_value: 25,
      suggested_value: 15,
      companion_fields: [{ field: 'precip_rate_source', value: 'measured' }],
      confidence: 'medium',
    });
    expect(rec?.evidence[1]).toBe(
      'Run lengths assume 25 mm/h (configured); the meter says the heads put down 60 % of that.',
    );
  });

  it("agrees with a catalog rate within 10 %; waits for sessions that agree, enough of them, and the zone's area", async () => {
    const { tuning, store } = await rig({
      rotor: { ...METERED, sprinkler_type: 'rotor' },
      wobbly: { ...METERED, precip_rate_mm_hr: 25 },
      few: { ...METERED, precip_rate_mm_hr: 25 },
      nowhere: { ...METERED, precip_rate_mm_hr: 25, area_sqft: undefined },
    });
    for (const d of days(6)) recordMetered(store, 'rotor', d, 13.2, 1000);
    days(6).forEach((d, i) => recordMetered(store, 'wobbly', d, [10, 15, 20, 12, 18, 25][i] as number, 1000));
    for (const d of days(4)) recordMetered(store, 'few', d, 15, 1000);
    for (const d of days(6)) recordMetered(store, 'nowhere', d, 15, 1000);
    const report = tuning.report(14);
    expect(entry(report, 'rotor').lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Sprinkler rate: 6 of 6 metered sessions .* within 10 % of the 12.7 mm\/h in use\.$/,
        ),
      ]),
    );
    expect(entry(report, 'wobbly').lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/the flow varies too much to measure the rate/)]),
    );
    expect(entry(report, 'few').lines).toContain(
      'Sprinkler rate: 4 metered session(s) in the last 14 days; at least 5 are needed.',
    );
    expect(entry(report, 'nowhere').lines).toContain(
      'Sprinkler rate: metered runs are recorded, but the zone has no area_sqft to turn their volume into a depth.',
    );
    for (const z of report.zones) expect(z.recommendation).toBeNull();
  });
});

describe('the weekly model against the ET record', () => {
  const WEEKLY = {
    display_name: 'Beds',
    species: 'tall_fescue',
    soil_texture: 'loam',
    sprinkler_type: 'rotor',
    scheduling_model: 'weekly',
    sessions_per_week: 2,
  };

  it('suggests the budget the crop used (ET0 x Kc, net of rain, at the capture efficiency)', async () => {
    const { tuning, store } = await rig(
      { beds: { ...WEEKLY, weekly_budget_in: 0.5 } },
      { et0_method: 'source_native' },
    );
    recordWeather(store, 14, 5, { [-10]: 7, [-3]: 3 });
    const kc = monthlyKc('tall_fescue', 7, 40.7);
    const etcWeek = 5 * kc * 7;
    const rainWeek = 5;
    const expected = Math.round(((rainWeek + (etcWeek - rainWeek) / 0.7) / 25.4) * 20) / 20;
    const rec = entry(tuning.report(14), 'beds').recommendation;
    expect(rec).toMatchObject({ field: 'weekly_budget_in', current_value: 0.5, suggested_value: expected });
    expect(rec?.evidence[0]).toBe(
      `Weather record ${addDays(TODAY, -14)}..${addDays(TODAY, -1)} (14 days): ET0 70 mm x Kc ${kc} (tall_fescue): ` +
        `the crop used ${Math.round(70 * kc * 10) / 10} mm; rain 10 mm, 10 mm credited after the 26 mm per-day cap.`,
    );
  });

  it('waits for a record that covers the window', async () => {
    const { tuning, store } = await rig(
      { beds: { ...WEEKLY, weekly_budget_in: 0.5 } },
      { et0_method: 'source_native' },
    );
    recordWeather(store, 9, 5);
    expect(entry(tuning.report(14), 'beds').lines).toContain(
      'Weekly budget: waiting for the daily weather record (ET0) (ET0 and rain are known on 9 of the last 14 days; 12 are needed).',
    );
  });

  it('spreads a budget over more sessions when one session holds more than the root zone (RAW)', async () => {
    const { tuning } = await rig({ beds: { ...WEEKLY, weekly_budget_in: 2, sessions_per_week: 1 } });
    const rec = entry(tuning.report(14), 'beds').recommendation;
    // 2 in x 25.4 x 0.7 = 35.6 mm to the roots; RAW = 0.4 x 26 = 10.4 mm: 4 sessions.
    expect(rec).toMatchObject({ field: 'sessions_per_week', current_value: 1, suggested_value: 4 });
    expect(rec?.evidence[1]).toMatch(/^The root zone holds 10.4 mm above its refill point/);
  });
});
