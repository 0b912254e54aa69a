import { zoneStandings } from '../../web/app/pages/dashboard/verdict';
import type { IrrigationSnapshot, Zone, ZoneVerdict } from '../../web/app/pages/zones/irrigation-types';
import { bucketGauge, depletionOf } from '../../web/app/pages/zones/zone-model';
import { STANDING_LABELS, zoneStandingOf } from '../../web/app/pages/zones/zone-standing';

/**
 * One story (issue 25 rule 7): the zones page and the zone page badge each
 * zone with the engine's verdict, the same place the dashboard lists it in,
 * never with "due" read off the gauge (depletion against RAW). The demo's
 * case: the front lawn past its trigger on a forecast bet is "Waiting for
 * rain" on every view, not "due" on one and "not due" on another.
 */

const row = (over: Partial<ZoneVerdict>): ZoneVerdict => ({
  zone: 'front_lawn',
  name: 'Front lawn',
  verdict: 'none',
  reason_code: 'not_due',
  reason: 'depletion below the trigger',
  water_need: 'low',
  planned_seconds: 0,
  ...over,
});

const zone = (slug: string, depletionMm: number): Zone =>
  ({
    slug,
    name: slug,
    running: false,
    running_known: true,
    bucket_mm: -depletionMm,
    math: { bucket_mm: -depletionMm, taw_mm: 11.25, raw_mm: 5.63 },
  }) as unknown as Zone;

const snap: IrrigationSnapshot = {
  last_refresh_epoch: 1,
  zones: [zone('front_lawn', 6.9), zone('beds', 7.5), zone('back_lawn', 2), zone('side', 8), zone('xeri', 6)],
  zone_verdicts: [
    row({
      zone: 'front_lawn',
      verdict: 'skip',
      reason_code: 'tomorrow_rain',
      water_need: 'due',
      reason: 'waiting for rain within the stress allowance',
    }),
    row({
      zone: 'beds',
      name: 'Beds',
      verdict: 'water',
      reason_code: 'water',
      water_need: 'due',
      planned_seconds: 900,
    }),
    row({ zone: 'back_lawn', name: 'Back lawn' }),
    row({ zone: 'side', name: 'Side', verdict: 'skip', reason_code: 'wind_now', water_need: 'due' }),
    row({
      zone: 'xeri',
      name: 'Xeriscape',
      verdict: 'hold',
      reason_code: 'depletion_unknown',
      water_need: 'unknown',
    }),
  ],
};

const fmt = (_q: string, v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v} mm`);

describe('zoneStandingOf', () => {
  it("agrees with the dashboard's groups for every zone", () => {
    const groups = zoneStandings(snap);
    const dashboard: Record<string, string> = {};
    for (const [key, zones] of Object.entries(groups))
      for (const z of zones) dashboard[z.slug] = key === 'notDue' ? 'not_due' : key;
    for (const z of snap.zones) expect(zoneStandingOf(snap, z.slug)).toBe(dashboard[z.slug]);
  });

  it('a zone past its trigger on a forecast bet reads "Waiting for rain", though its gauge is past RAW', () => {
    const front = snap.zones[0] as Zone;
    expect(bucketGauge(depletionOf(front), fmt).pastTrigger).toBe(true);
    expect(zoneStandingOf(snap, 'front_lawn')).toBe('waiting');
    expect(STANDING_LABELS.waiting).toBe('Waiting for rain');
  });

  it('past the trigger but held by a measured rule is held; watering is watering; unknown stays unknown', () => {
    expect(zoneStandingOf(snap, 'side')).toBe('held');
    expect(zoneStandingOf(snap, 'beds')).toBe('watering');
    expect(zoneStandingOf(snap, 'xeri')).toBe('unknown');
    expect(zoneStandingOf(snap, 'back_lawn')).toBe('not_due');
  });

  it('a zone the snapshot has no verdict for has no standing (not known, no badge)', () => {
    expect(zoneStandingOf(snap, 'nowhere')).toBeNull();
    expect(zoneStandingOf({ last_refresh_epoch: 1, zones: [] }, 'front_lawn')).toBeNull();
  });
});
