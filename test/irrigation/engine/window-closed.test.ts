import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { WINDOW_CLOSED_NOTE } from '../../../server/src/irrigation/engine/water-plan';
import type { EngineOutput } from '../../../server/src/irrigation/engine/types';
import type { WeatherSnapshot } from '../../../server/src/weather/snapshot';
import type { EngineInput } from '../../../server/src/irrigation/engine/types';
import { dateAt, forecast, input as baseInput, local, NOW, pastDays, run } from './fixtures';
import { stationWeather } from '../skip/fixtures';

/**
 * Day 0 after today's run window: the decision stays on screen, but water
 * that did not run is not projected into tomorrow (the deficit carries on).
 * The fixtures are a dry June week in Orlando; sunrise there is about 06:27 EDT and the
 * fixtures' night of water starts the window near 02:45.
 */

const PRE_DAWN = local(`${dateAt(0)}T01:30:00`);

/** A soaking 3 in of rain a week ago makes the root zone's state known: from then on it is exact. */
function input(values: Partial<EngineInput> = {}): EngineInput {
  const past = pastDays(7).map((d, i) => (i === 0 ? { ...d, precip_sum_in: 3 } : d));
  return baseInput({ forecast: forecast({ past_daily: past }), ...values });
}

/** The fixtures' station, observed a minute before `now`. */
function weatherAt(now: number): WeatherSnapshot {
  const shifted: Record<string, unknown> = { ...stationWeather() };
  for (const [key, value] of Object.entries(shifted)) {
    if (key.endsWith('_epoch') && typeof value === 'number' && value > 0) shifted[key] = value - NOW + now;
  }
  return shifted as unknown as WeatherSnapshot;
}

function plan(out: EngineOutput, slug: string, day: number) {
  const zone = out.snapshot.water_plan[day]?.zones.find((z) => z.zone === slug);
  if (!zone) throw new Error(`no plan for ${slug} day ${day}`);
  return zone;
}

describe("today's run window closed", () => {
  const open = computeIrrigation(input({ nowEpoch: PRE_DAWN, weather: weatherAt(PRE_DAWN) }));
  const closed = computeIrrigation(input());

  it('before the window, day 0 waters and tomorrow is projected with that water', () => {
    expect(open.snapshot.water_plan[0]?.['window_closed']).toBe(false);
    const today = plan(open, 'front_lawn', 0);
    expect(today.reason_code).toBe('water');
    expect(today.planned_seconds).toBeGreaterThan(0);
    expect(today.reason).not.toContain(WINDOW_CLOSED_NOTE);
    expect(open.snapshot.next_run_day_offset).toBe(0);
  });

  it('after the window, day 0 keeps the decision and says the water did not run', () => {
    expect(closed.snapshot.water_plan[0]?.['window_closed']).toBe(true);
    expect(closed.snapshot.water_plan[1]?.['window_closed']).toBe(false);
    const today = plan(closed, 'front_lawn', 0);
    expect(today.reason_code).toBe('water');
    expect(today.planned_seconds).toBe(plan(open, 'front_lawn', 0).planned_seconds);
    expect(today.reason).toContain(WINDOW_CLOSED_NOTE);
  });

  it('after the window, the unrun water is not counted: tomorrow carries the deficit and plans it', () => {
    const tomorrowOpen = plan(open, 'front_lawn', 1);
    const tomorrowClosed = plan(closed, 'front_lawn', 1);
    expect(tomorrowClosed.depletion_mm as number).toBeGreaterThan(tomorrowOpen.depletion_mm as number);
    expect(tomorrowClosed.reason_code).toBe('water');
    expect(tomorrowClosed.planned_seconds).toBeGreaterThan(0);
    expect(closed.snapshot.next_run_state).toBe('at');
    expect(closed.snapshot.next_run_day_offset).toBe(1);
  });

  it('water that did run today is in the ledger: nothing is left to flag', () => {
    const ran = computeIrrigation(
      input({
        runs: [
          run({ zone: 'front_lawn', start_epoch: local(`${dateAt(0)}T05:00:00`), duration_s: 3 * 3600 }),
        ],
      }),
    );
    const today = plan(ran, 'front_lawn', 0);
    expect(today.planned_seconds).toBe(0);
    expect(today.reason).not.toContain(WINDOW_CLOSED_NOTE);
  });
});

describe('one number per fact', () => {
  const open = computeIrrigation(input({ nowEpoch: PRE_DAWN, weather: weatherAt(PRE_DAWN) }));
  const closed = computeIrrigation(input());

  it("a zone's planned run is the next window's: today's before it, tomorrow's once today's closed", () => {
    const zone = (out: EngineOutput) => out.snapshot.zones.find((z) => z.slug === 'front_lawn');
    expect(zone(open)?.planned_run_seconds).toBe(plan(open, 'front_lawn', 0).planned_seconds);
    expect(zone(closed)?.planned_run_seconds).toBe(plan(closed, 'front_lawn', 1).planned_seconds);
    // A frost night tomorrow: the closed window's 1 h is a record, and nothing is planned next.
    const daily = forecast().daily.map((d, i) => (i === 1 ? { ...d, temp_min_f: 28, temp_max_f: 45 } : d));
    const frost = computeIrrigation(input({ forecast: forecast({ daily }) }));
    expect(plan(frost, 'front_lawn', 0).planned_seconds).toBeGreaterThan(0);
    expect(plan(frost, 'front_lawn', 1).planned_seconds).toBe(0);
    expect(zone(frost)?.planned_run_seconds).toBe(0);
    const next = frost.snapshot.water_plan[frost.snapshot.next_run_day_offset];
    expect(next?.day_offset).toBeGreaterThan(1);
  });

  it("forecast.eto_today_mm is the ET0 the engine used for today (the trace's figure)", () => {
    for (const out of [open, closed]) {
      const trace = out.snapshot.decision_trace as {
        date_local: string;
        et0_days: { date_local: string; et0_mm: number | null }[];
      };
      const used = trace.et0_days.find((d) => d.date_local === trace.date_local)?.et0_mm;
      expect(typeof used).toBe('number');
      expect(out.snapshot.forecast.eto_today_mm).toBe(used);
    }
  });
});
