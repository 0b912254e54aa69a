import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { configSchema } from '../../server/src/config/schema';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { zoneFor } from '../../server/src/core/tz/zone';
import { capBindingPastRaw } from '../../server/src/irrigation/anomalies/detectors/cap-binding';
import { gatherAnomalyEvidence } from '../../server/src/irrigation/anomalies/evidence-source';
import { storeEvidenceProviders } from '../../server/src/irrigation/tuning/evidence-source';
import { TuningService } from '../../server/src/irrigation/tuning/tuning-service';
import { runSeason, seasonConfig, type SeasonLine } from '../../server/src/season/season-runner';
import { Store } from '../../server/src/store/store';
import { readSeason, SEASONS } from './fixtures';

/**
 * Rule 6 on a measured desert summer (Maricopa 2013): tall fescue under MP
 * rotators, whose 60-minute cap puts down 7.1 mm net while the crop uses
 * more at peak. Replayed on a simulated clock, then judged from the replay's
 * database as the service would each noon: the `cap_binding_past_raw`
 * anomaly appears on the very day the rule's condition first holds in the
 * replay's own lines (the second short session in a row after a day closed
 * past RAW), not a week later, and the tuning report of that day already
 * suggests a longer cap with the ledger's days as evidence.
 */

jest.setTimeout(180_000);

const FROM = '2013-05-01';
const TO = '2013-07-10';
const ZONE = 'mp_lawn';

function dates(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = DateTime.fromISO(from); d.toISODate()! <= to; d = d.plus({ days: 1 }))
    out.push(d.toISODate()!);
  return out;
}

/**
 * The rule's condition read from the replay's own lines on `today` (noon):
 * the zone's last 2+ watered sessions of the last 14 days were all capped,
 * the last of them today, and a day since the first of them closed past RAW.
 */
function triggerHolds(lines: readonly SeasonLine[], today: string): boolean {
  const since = DateTime.fromISO(today).minus({ days: 13 }).toISODate()!;
  const mine = lines
    .filter((l) => l.zone === ZONE && l.date <= today)
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  const watered = mine.filter((l) => l.date >= since && l.irrigation_seconds > 0);
  let run = 0;
  while (run < watered.length && watered[watered.length - 1 - run]!.session_capped) run += 1;
  if (run < 2) return false;
  const first = watered[watered.length - run]!.date;
  return mine.some(
    (l) => l.date >= first && l.date < today && l.depletion_mm !== null && l.depletion_mm > l.raw_mm,
  );
}

it('a binding cap in a desert summer is reported the day it leaves the zone past RAW, with the raise suggested', async () => {
  const wth = readSeason('maricopa');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-cap-season-'));
  const placed = {
    config: configSchema.parse({
      schema_version: 2,
      deployment: { location: { lat: 0, lon: 0 } },
      zones: {
        [ZONE]: {
          display_name: 'Tall fescue (MP rotators)',
          species: 'tall_fescue',
          soil_texture: 'loam',
          sprinkler_type: 'mp_rotator',
          sun_exposure: 'full',
          max_run_minutes: 60,
        },
      },
    }),
    lat: wth.latitude_deg,
    lon: SEASONS.maricopa.lon,
    elevation_m: wth.elevation_m,
  };
  const applied = seasonConfig(placed);
  const timezone = applied.deployment.timezone as string;
  const lines = await runSeason({
    ...placed,
    days: wth.days,
    from: FROM,
    to: TO,
    forecast: 'perfect',
    dbPath: path.join(dir, 'season.db'),
  });
  const days = dates(FROM, TO);
  const expected = days.filter((date) => triggerHolds(lines, date));
  // 60 minutes of MP rotators: the net the cap allows is what the issue measured.
  const capped = lines.find((l) => l.zone === ZONE && l.session_capped && l.irrigation_seconds === 3600);
  expect(capped?.irrigation_net_mm).toBeCloseTo(7.1, 0);

  const store = Store.open(path.join(dir, 'season.db'), silentLogger());
  try {
    const noonOf = (date: string) =>
      DateTime.fromISO(`${date}T12:00`, { zone: zoneFor(timezone) }).toSeconds();
    const live = {
      store,
      config: applied,
      timezone,
      sources: [],
      forecast: null,
      irrigation: null,
      modelledKinds: new Set<string>(),
    };
    const heard = { controllerFailures: [], flowAlarms: null, restartPendingSince: null };
    const reported = days.filter(
      (date) => capBindingPastRaw.detect(gatherAnomalyEvidence(live, noonOf(date), heard)).length > 0,
    );
    // Every day the condition holds, and only those: reported the same day, cleared once the zone catches up.
    expect(reported).toEqual(expected);
    // The case: at peak the cap keeps the fescue past RAW for weeks; the anomaly stands all along (told once).
    expect(reported).toEqual(expect.arrayContaining(dates('2013-06-15', '2013-07-10')));
    const day = reported.at(-1)!;

    const tuning = new TuningService({
      store,
      clock: new ManualClock(noonOf(day) * 1000),
      config: {
        current: { config: applied, document: {}, appliedAtEpoch: 0, revision: 1 },
        update: () => Promise.reject(new Error('read-only replay')),
      },
      timezone: () => timezone,
      rainThresholdIn: () => 0.25,
      restartReasons: () => [],
      providers: storeEvidenceProviders(store),
    });
    const recommendation = tuning.report(14).zones.find((z) => z.slug === ZONE)?.recommendation;
    expect(recommendation).toMatchObject({ field: 'max_run_minutes', current_value: 60 });
    expect(recommendation?.suggested_value as number).toBeGreaterThan(60);
    expect(recommendation?.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/: the day closed at [\d.]+ mm depletion, past RAW [\d.]+ mm\.$/),
      ]),
    );
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
