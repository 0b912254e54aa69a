import fs from 'node:fs';
import { parseToml } from '../../../server/src/config/toml';
import type { Recommendation } from '../../../server/src/irrigation/tuning/recommendation';
import { rejection } from '../../helpers/config-fixtures';
import { recordYard } from './ledger-history';
import { addDays } from './recorded-history';
import { bucketOf, entry, recordMetered, recordWeather, TODAY, tuningRigs, type Rig } from './tuning-rig';

/**
 * Applying the evidence-backed recommendations (spec 4.5 zones/apply) through
 * a real ConfigService: the value and its companion fields are written, the
 * save is snapshotted, a rollback restores the old values, and a
 * recommendation whose evidence drifted answers 409 `stale_recommendation`
 * with what derives now.
 */

const rig = tuningRigs();

function storedZone(r: Rig, slug: string): Record<string, unknown> {
  const doc = parseToml(fs.readFileSync(r.configPath, 'utf8')) as {
    zones: Record<string, Record<string, unknown>>;
  };
  return doc.zones[slug] as Record<string, unknown>;
}

async function applyShown(r: Rig, slug: string, days: number): Promise<{ rec: Recommendation; ts: string }> {
  const rec = entry(r.tuning.report(days), slug).recommendation;
  if (!rec) throw new Error(`no recommendation for ${slug}`);
  const result = await r.tuning.apply({
    zone_slug: slug,
    recommendation_id: rec.id,
    field: rec.field,
    value: rec.suggested_value,
    window_days: days,
  });
  expect(result).toMatchObject({
    applied: true,
    zone: slug,
    field: rec.field,
    old_value: rec.current_value,
    new_value: rec.suggested_value,
    validation: { ok: true },
  });
  expect(result.saved.previous_snapshot_ts).not.toBeNull();
  return { rec, ts: result.saved.previous_snapshot_ts as string };
}

const LAWN = {
  display_name: 'Lawn',
  species: 'tall_fescue',
  soil_texture: 'loam',
  area_sqft: 1000,
  precip_rate_mm_hr: 25,
};
const meteredDays = (n: number, from = 2) =>
  Array.from({ length: n }, (_, i) => addDays(TODAY, -from - i * 2));

describe('applying evidence-backed recommendations', () => {
  it('a measured sprinkler rate writes precip_rate_source = measured; a rollback restores both', async () => {
    const r = await rig({ lawn: LAWN });
    for (const d of meteredDays(6)) recordMetered(r.store, 'lawn', d, 15, 1000);
    const { rec, ts } = await applyShown(r, 'lawn', 14);
    expect(rec).toMatchObject({
      suggested_value: 15,
      companion_fields: [{ field: 'precip_rate_source', value: 'measured' }],
    });
    expect(storedZone(r, 'lawn')).toMatchObject({ precip_rate_mm_hr: 15, precip_rate_source: 'measured' });
    expect(r.config.current?.config.zones.lawn).toMatchObject({
      precip_rate_mm_hr: 15,
      precip_rate_source: 'measured',
    });
    // The meter now agrees with the config: nothing to recommend, and the same id is stale.
    expect(entry(r.tuning.report(14), 'lawn')).toMatchObject({ status: 'ok', recommendation: null });
    await expect(
      rejection(
        r.tuning.apply({ zone_slug: 'lawn', recommendation_id: rec.id, field: rec.field, value: 15 }),
      ),
    ).resolves.toMatchObject({ status: 409, code: 'stale_recommendation', extra: { current: null } });

    await r.config.rollback(ts);
    expect(storedZone(r, 'lawn')).toMatchObject({ precip_rate_mm_hr: 25 });
    expect(storedZone(r, 'lawn')).not.toHaveProperty('precip_rate_source');
    expect(entry(r.tuning.report(14), 'lawn').recommendation?.id).toBe(rec.id);
  });

  it('answers 409 when the measured rate drifted to a new value, naming what derives now, and writes nothing', async () => {
    const r = await rig({ lawn: LAWN });
    for (const d of meteredDays(6, 4)) recordMetered(r.store, 'lawn', d, 15, 1000);
    const old = entry(r.tuning.report(14), 'lawn').recommendation as Recommendation;
    // Six newer sessions at 16 mm/h (a pressure change): the median moves, and with it the value and the id.
    for (const back of [0, 1, 3, 5, 7, 9]) recordMetered(r.store, 'lawn', addDays(TODAY, -back), 16, 1000);
    const before = fs.readFileSync(r.configPath, 'utf8');
    const err = await rejection(
      r.tuning.apply({
        zone_slug: 'lawn',
        recommendation_id: old.id,
        field: old.field,
        value: 15,
        window_days: 14,
      }),
    );
    const now = entry(r.tuning.report(14), 'lawn').recommendation as Recommendation;
    expect(now.id).not.toBe(old.id);
    expect(err).toMatchObject({
      status: 409,
      code: 'stale_recommendation',
      extra: { current: { id: now.id, field: 'precip_rate_mm_hr', suggested_value: now.suggested_value } },
    });
    expect(fs.readFileSync(r.configPath, 'utf8')).toBe(before);
  });

  it('a raised rain cap round-trips; the ledger rows of the old cap no longer count as evidence', async () => {
    const plot = {
      display_name: 'Plot',
      species: 'other',
      soil_texture: 'loam',
      precip_rate_mm_hr: 20,
      rain_credit_cap_in: 0.1,
    };
    const { taw, raw } = bucketOf(plot);
    const r = await rig({ plot });
    recordYard(r.store, {
      zone: 'plot',
      today: TODAY,
      days: 30,
      taw,
      raw,
      capMm: 2.54,
      etc: 3.5,
      rain: { [-25]: 9, [-18]: 9, [-11]: 9, [-4]: 9 },
    });
    const { rec, ts } = await applyShown(r, 'plot', 30);
    expect(rec.field).toBe('rain_credit_cap_in');
    expect(storedZone(r, 'plot').rain_credit_cap_in).toBe(rec.suggested_value);
    // Until the ledger replays under the new cap, its rows credit 2.54 mm, not the cap now: no evidence, no suggestion.
    expect(entry(r.tuning.report(30), 'plot').recommendation).toBeNull();
    await r.config.rollback(ts);
    expect(storedZone(r, 'plot').rain_credit_cap_in).toBe(0.1);
    expect(entry(r.tuning.report(30), 'plot').recommendation?.id).toBe(rec.id);
  });

  it('a weekly budget round-trips; a hotter fortnight later makes the old id stale', async () => {
    const beds = {
      display_name: 'Beds',
      species: 'tall_fescue',
      soil_texture: 'loam',
      sprinkler_type: 'rotor',
      scheduling_model: 'weekly',
      sessions_per_week: 3,
      weekly_budget_in: 0.5,
    };
    const r = await rig({ beds }, { et0_method: 'source_native' });
    recordWeather(r.store, 14, 5);
    const first = entry(r.tuning.report(14), 'beds').recommendation as Recommendation;
    recordWeather(r.store, 14, 7);
    await expect(
      rejection(
        r.tuning.apply({
          zone_slug: 'beds',
          recommendation_id: first.id,
          field: first.field,
          value: first.suggested_value,
        }),
      ),
    ).resolves.toMatchObject({ status: 409, code: 'stale_recommendation' });
    const { rec, ts } = await applyShown(r, 'beds', 14);
    expect(rec.suggested_value as number).toBeGreaterThan(first.suggested_value as number);
    expect(storedZone(r, 'beds').weekly_budget_in).toBe(rec.suggested_value);
    // The budget fits now; with it, three sessions would each hold more than the root zone: the next suggestion.
    const after = entry(r.tuning.report(14), 'beds');
    expect(after.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^Weekly budget: .*; the ${rec.suggested_value} in budget delivers it\\.$`),
        ),
      ]),
    );
    expect(after.recommendation?.field).toBe('sessions_per_week');
    await r.config.rollback(ts);
    expect(storedZone(r, 'beds').weekly_budget_in).toBe(0.5);
  });

  it("a probe's root depth round-trips; until the ledger replays, the report says it waits for it", async () => {
    const plot = {
      display_name: 'Plot',
      species: 'other',
      soil_texture: 'loam',
      precip_rate_mm_hr: 20,
      root_depth_mm: 200,
      soil_sensor_id: 'source:eco:soil_moisture_pct:1',
      saturation_pct_soil: 25,
      target_min_pct_soil: 19,
    };
    const { taw, raw } = bucketOf(plot);
    const r = await rig({ plot });
    recordYard(r.store, {
      zone: 'plot',
      today: TODAY,
      days: 30,
      taw,
      raw,
      capMm: taw,
      etc: 3.5,
      probe: true,
      scale: 0.5,
    });
    const { rec, ts } = await applyShown(r, 'plot', 30);
    expect(rec).toMatchObject({ field: 'root_depth_mm', suggested_value: 400 });
    expect(storedZone(r, 'plot').root_depth_mm).toBe(400);
    const after = entry(r.tuning.report(30), 'plot');
    expect(after.recommendation).toBeNull();
    expect(after.lines).toContain(
      "Waiting for the soil ledger's replay under the current settings: root_depth_mm, mad_pct_override, soil_texture, rain_credit_cap_in.",
    );
    await r.config.rollback(ts);
    expect(storedZone(r, 'plot').root_depth_mm).toBe(200);
    expect(entry(r.tuning.report(30), 'plot').recommendation?.id).toBe(rec.id);
  });
});
