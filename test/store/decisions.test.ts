import { storedDaily, type DailyDecision } from '../../server/src/store/decisions';
import { tempStore } from './temp-db';

const t = tempStore();

function decision(overrides: Partial<DailyDecision> = {}): DailyDecision {
  return {
    date_local: '2025-06-01',
    epoch: 1_748_760_000,
    kind: 'smart_morning',
    zones: [
      {
        zone: 'front_lawn',
        name: 'Front lawn',
        reason_code: 'rain_skip',
        reason: 'Rain 0.30 in',
        water_need: 'none',
        planned_seconds: 0,
      },
    ],
    ...overrides,
  };
}

describe('DecisionsRepository daily decisions', () => {
  it('round-trips a decision with its zone list', () => {
    t.store().decisions.upsertDaily(decision());
    expect(t.store().decisions.listDaily(0, 2_000_000_000)).toEqual([decision()]);
  });

  it('replaces the decision for the same local day and kind', () => {
    const decisions = t.store().decisions;
    decisions.upsertDaily(decision());
    decisions.upsertDaily(decision({ kind: 'evening' }));
    const revised = decision({ epoch: 1_748_761_000, zones: [] });
    decisions.upsertDaily(revised);
    expect(decisions.listDaily(0, 2_000_000_000)).toEqual([decision({ kind: 'evening' }), revised]);
  });

  it('lists an inclusive epoch window oldest first', () => {
    const decisions = t.store().decisions;
    decisions.upsertDaily(decision({ date_local: '2025-06-03', epoch: 300 }));
    decisions.upsertDaily(decision({ date_local: '2025-06-01', epoch: 100 }));
    decisions.upsertDaily(decision({ date_local: '2025-06-02', epoch: 200 }));
    expect(decisions.listDaily(100, 200).map((d) => d.date_local)).toEqual(['2025-06-01', '2025-06-02']);
  });

  it('lists whole local dates whatever their epochs, in the epoch order', () => {
    const decisions = t.store().decisions;
    decisions.upsertDaily(decision({ date_local: '2025-06-03', epoch: 300 }));
    decisions.upsertDaily(decision({ date_local: '2025-06-02', epoch: 250, kind: 'skip' }));
    decisions.upsertDaily(decision({ date_local: '2025-06-02', epoch: 200 }));
    decisions.upsertDaily(decision({ date_local: '2025-06-01', epoch: 100 }));
    expect(decisions.listDailyDates('2025-06-02', '2025-06-03').map((d) => [d.date_local, d.kind])).toEqual([
      ['2025-06-02', 'smart_morning'],
      ['2025-06-02', 'skip'],
      ['2025-06-03', 'smart_morning'],
    ]);
  });

  it("reads back a day's latest row as stored (latest epoch, then kind)", () => {
    const decisions = t.store().decisions;
    expect(decisions.latestOfDay('2025-06-01')).toBeNull();
    decisions.upsertDaily(decision({ kind: 'skip', epoch: 200 }));
    decisions.upsertDaily(decision({ kind: 'water', epoch: 100 }));
    decisions.upsertDaily(decision({ date_local: '2025-06-02', kind: 'water', epoch: 300 }));
    expect(decisions.latestOfDay('2025-06-01')).toEqual({
      date_local: '2025-06-01',
      epoch: 200,
      kind: 'skip',
      zones: storedDaily(decision()).zones,
    });
    decisions.upsertDaily(decision({ kind: 'water', epoch: 200 }));
    expect(decisions.latestOfDay('2025-06-01')?.kind).toBe('water');
  });
});

describe('DecisionsRepository verdict transitions', () => {
  it('round-trips transitions, JSON reason and null previous verdict included', () => {
    const decisions = t.store().decisions;
    const first = { epoch: 100, verdict: 'run', previous_verdict: null, reason: { code: 'dry', rain_in: 0 } };
    const second = { epoch: 200, verdict: 'skip', previous_verdict: 'run', reason: ['rain_skip', null] };
    const firstId = decisions.insertTransition(first);
    const secondId = decisions.insertTransition(second);
    expect(decisions.listTransitions(0, 1_000)).toEqual([
      { id: firstId, ...first },
      { id: secondId, ...second },
    ]);
    expect(decisions.listTransitions(150, 1_000)).toHaveLength(1);
    expect(decisions.latestTransition()).toEqual({ id: secondId, ...second });
  });

  it('has no latest transition on a new database', () => {
    expect(t.store().decisions.latestTransition()).toBeNull();
  });
});
