import type { AppliedConfig } from '../../server/src/config/config-types';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { untrainedBias } from '../../server/src/forecast/bias';
import { DailyDecisionWriter } from '../../server/src/irrigation/daily-decision-writer';
import { computeIrrigation } from '../../server/src/irrigation/engine/engine';
import type { EngineInput, EngineOutput } from '../../server/src/irrigation/engine/types';
import { IrrigationService, type ComputeIrrigation } from '../../server/src/irrigation/irrigation-service';
import { SKILL_LOOKBACK_DAYS } from '../../server/src/irrigation/policy/forecast-policy';
import { addLocalDays, localDateOf } from '../../server/src/irrigation/schedule/local-date';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import type { DailyDecision, DecisionZone } from '../../server/src/store/decisions';
import type { Store } from '../../server/src/store/store';
import { day, demo, forecast, local, NOW, TODAY, TZ } from './engine/fixtures';
import { stationWeather } from './skip/fixtures';
import { tempStore } from '../store/temp-db';

/**
 * The daily decision row is written when what it records changes, not on
 * every recompute (daily-decision-writer.ts): the engine recomputes every
 * 10 s to a minute and the database syncs each commit to disk.
 */

const t = tempStore();

const BIAS = untrainedBias(6);

function applied(): AppliedConfig {
  return { config: demo(), document: {}, appliedAtEpoch: 0, revision: 1 };
}

function zoneLine(values: Partial<DecisionZone> = {}): DecisionZone {
  return {
    zone: 'front_lawn',
    name: 'Front lawn',
    reason_code: 'due',
    reason: 'Soil 18 mm below its trigger',
    water_need: 'due',
    planned_seconds: 900,
    forecast_tomorrow_rain_mm: 0,
    forecast_tomorrow_rain_pct: 10,
    ...values,
  };
}

/** What the scripted engine decides next; it stamps the compute time and local date like the real one. */
interface Script {
  verdict: string;
  zones: DecisionZone[];
}

/** A stand-in engine: the test drives the decision's content; the service under test records it. */
function scriptedEngine(script: Script, seen: EngineInput[]): ComputeIrrigation {
  return (input) => {
    seen.push(input);
    const output: EngineOutput = {
      snapshot: {} as IrrigationSnapshot,
      decision: {
        date_local: localDateOf(input.nowEpoch, input.timezone),
        epoch: input.nowEpoch,
        kind: script.verdict,
        zones: script.zones.map((z) => ({ ...z })),
      },
      verdict: script.verdict,
      verdictReason: { reason_code: 'due', reason: 'due', deciding: 'model' },
    };
    return output;
  };
}

/** The service over a real store; `forecastNow` is what the forecast snapshot returns (default `forecast()`). */
function service(
  store: Store,
  clock: ManualClock,
  compute: ComputeIrrigation,
  forecastNow: () => ReturnType<typeof forecast> = () => forecast(),
): IrrigationService {
  return new IrrigationService({
    bus: new EventBus(),
    clock,
    logger: silentLogger(),
    config: applied,
    store,
    weather: { snapshot: () => stationWeather(), currentWeather: () => null },
    forecast: { snapshot: forecastNow, bias: () => BIAS },
    compute,
  });
}

/** Rows inserted, updated or deleted on this connection so far (SQLite `total_changes()`). */
function writes(store: Store): number {
  return store.db.prepare('SELECT total_changes()').pluck().get() as number;
}

function daily(store: Store): DailyDecision[] {
  return store.decisions.listDaily(0, 4_000_000_000);
}

describe('IrrigationService daily decision record', () => {
  it('leaves the row alone when a recompute decides the same (only the compute time moved)', () => {
    const clock = new ManualClock(NOW * 1000);
    const irrigation = service(
      t.store(),
      clock,
      scriptedEngine({ verdict: 'water', zones: [zoneLine()] }, []),
    );
    irrigation.refresh();
    const before = writes(t.store());
    clock.advance(15_000);
    irrigation.refresh();
    clock.advance(60_000);
    irrigation.refresh();
    expect(writes(t.store())).toBe(before);
    expect(daily(t.store())).toEqual([{ date_local: TODAY, epoch: NOW, kind: 'water', zones: [zoneLine()] }]);
  });

  it('writes when an amount, a reason or the recorded forecast promise changes, with the new epoch', () => {
    const clock = new ManualClock(NOW * 1000);
    const script: Script = { verdict: 'water', zones: [zoneLine()] };
    const irrigation = service(t.store(), clock, scriptedEngine(script, []));
    irrigation.refresh();
    const changes: Partial<DecisionZone>[] = [
      { planned_seconds: 600 },
      { reason: 'Soil 12 mm below its trigger' },
      { forecast_tomorrow_rain_mm: 4.2 },
    ];
    for (const change of changes) {
      clock.advance(60_000);
      script.zones = [zoneLine(change)];
      irrigation.refresh();
      const epoch = Math.floor(clock.nowMs() / 1000);
      expect(daily(t.store())).toEqual([
        { date_local: TODAY, epoch, kind: 'water', zones: [zoneLine(change)] },
      ]);
    }
  });

  it('rewrites a kind the verdict flips back to, so the day reads as its latest decision', () => {
    const clock = new ManualClock(NOW * 1000);
    const script: Script = { verdict: 'water', zones: [zoneLine()] };
    const irrigation = service(t.store(), clock, scriptedEngine(script, []));
    irrigation.refresh();
    clock.advance(600_000);
    Object.assign(script, { verdict: 'skip', zones: [zoneLine({ planned_seconds: 0, water_need: 'none' })] });
    irrigation.refresh();
    clock.advance(600_000);
    Object.assign(script, { verdict: 'water', zones: [zoneLine()] });
    irrigation.refresh();
    const rows = daily(t.store());
    expect(rows.map((r) => [r.kind, r.epoch])).toEqual([
      ['skip', NOW + 600],
      ['water', NOW + 1200],
    ]);
    expect(t.store().decisions.latestOfDay(TODAY)?.kind).toBe('water');
  });

  it("starts the next local day's row at its first recompute", () => {
    const clock = new ManualClock(local(`${TODAY}T23:59:30`) * 1000);
    const irrigation = service(
      t.store(),
      clock,
      scriptedEngine({ verdict: 'water', zones: [zoneLine()] }, []),
    );
    irrigation.refresh();
    clock.advance(60_000);
    irrigation.refresh();
    const tomorrow = addLocalDays(TODAY, 1, TZ);
    expect(daily(t.store()).map((r) => [r.date_local, r.epoch])).toEqual([
      [TODAY, local(`${TODAY}T23:59:30`)],
      [tomorrow, local(`${tomorrow}T00:00:30`)],
    ]);
  });

  it('writes nothing after a restart that decides the same', () => {
    const clock = new ManualClock(NOW * 1000);
    const script: Script = { verdict: 'water', zones: [zoneLine()] };
    service(t.store(), clock, scriptedEngine(script, [])).refresh();
    const store = t.reopen();
    clock.advance(120_000);
    const restarted = service(store, clock, scriptedEngine(script, []));
    restarted.refresh();
    expect(writes(store)).toBe(0);
    expect(daily(store)).toEqual([{ date_local: TODAY, epoch: NOW, kind: 'water', zones: [zoneLine()] }]);
    // ...and still records the next change.
    clock.advance(60_000);
    script.zones = [zoneLine({ planned_seconds: 300 })];
    restarted.refresh();
    expect(daily(store)[0]?.epoch).toBe(NOW + 180);
  });

  it("gives the engine the lookback's oldest day whatever time of that day its row was decided", () => {
    const oldest = addLocalDays(TODAY, -(SKILL_LOOKBACK_DAYS + 1), TZ);
    const earlyThatDay = local(`${oldest}T00:02`);
    t.store().decisions.upsertDaily({
      date_local: oldest,
      epoch: earlyThatDay,
      kind: 'water',
      zones: [zoneLine()],
    });
    const tooOld = addLocalDays(oldest, -1, TZ);
    t.store().decisions.upsertDaily({
      date_local: tooOld,
      epoch: local(`${tooOld}T23:59`),
      kind: 'water',
      zones: [zoneLine()],
    });
    const seen: EngineInput[] = [];
    const clock = new ManualClock(NOW * 1000);
    service(t.store(), clock, scriptedEngine({ verdict: 'water', zones: [zoneLine()] }, seen)).refresh();
    expect(seen[0]?.recentDecisions?.map((d) => d.date_local)).toEqual([oldest]);
  });
});

describe('IrrigationService daily decision record with the real engine', () => {
  function realService(store: Store, clock: ManualClock, rainTomorrowIn: () => number): IrrigationService {
    const rainTomorrow = () =>
      forecast({
        daily: Array.from({ length: 8 }, (_, i) =>
          day(i, i === 1 ? { precip_sum_in: rainTomorrowIn() } : {}),
        ),
      });
    return service(store, clock, computeIrrigation, rainTomorrow);
  }

  it('keeps one write for recomputes a tick apart, and writes when the forecast it records moves', () => {
    const clock = new ManualClock(NOW * 1000);
    let rain = 0;
    const irrigation = realService(t.store(), clock, () => rain);
    irrigation.refresh();
    const first = daily(t.store());
    expect(first).toHaveLength(1);
    expect(first[0]?.zones.length).toBeGreaterThan(0);
    const before = writes(t.store());
    clock.advance(60_000);
    irrigation.refresh();
    expect(writes(t.store())).toBe(before);
    expect(daily(t.store())).toEqual(first);

    rain = 0.02;
    clock.advance(60_000);
    irrigation.refresh();
    const [row] = daily(t.store());
    expect(row?.epoch).toBe(NOW + 120);
    expect(row?.zones[0]?.forecast_tomorrow_rain_mm).toBe(0.51);
  });
});

describe('DailyDecisionWriter', () => {
  it('retries a write that failed at the next record of the same decision', () => {
    const decisions = t.store().decisions;
    let failNext = true;
    const writer = new DailyDecisionWriter({
      latestOfDay: (date) => decisions.latestOfDay(date),
      writeDaily: (row) => {
        if (failNext) {
          failNext = false;
          throw new Error('SQLITE_FULL: database or disk is full');
        }
        decisions.writeDaily(row);
      },
    });
    const decision = { date_local: TODAY, epoch: NOW, kind: 'water', zones: [zoneLine()] };
    expect(() => writer.record(decision)).toThrow('SQLITE_FULL');
    expect(writer.record({ ...decision, epoch: NOW + 15 })).toBe(true);
    expect(writer.record({ ...decision, epoch: NOW + 30 })).toBe(false);
    expect(daily(t.store())).toEqual([{ ...decision, epoch: NOW + 15 }]);
  });
});
