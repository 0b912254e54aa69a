import { tempStore } from './temp-db';

/** The learning loop's tables: session plans, tuning dismissals, announcements. */

const t = tempStore();

describe('TuningDismissalsRepository', () => {
  it('keeps one snooze and one permanent per zone and field, replacing on a second dismissal', () => {
    const repo = t.store().tuningDismissals;
    repo.put({
      zone: 'front',
      field: 'max_run_minutes',
      kind: 'snooze',
      recommendation_id: 'aaa',
      created_epoch: 100,
      expires_epoch: 200,
    });
    repo.put({
      zone: 'front',
      field: 'max_run_minutes',
      kind: 'snooze',
      recommendation_id: 'bbb',
      created_epoch: 150,
      expires_epoch: 250,
    });
    repo.put({
      zone: 'front',
      field: 'max_run_minutes',
      kind: 'permanent',
      recommendation_id: 'bbb',
      created_epoch: 160,
      expires_epoch: null,
    });
    expect(repo.all()).toEqual([
      {
        zone: 'front',
        field: 'max_run_minutes',
        kind: 'permanent',
        recommendation_id: 'bbb',
        created_epoch: 160,
        expires_epoch: null,
      },
      {
        zone: 'front',
        field: 'max_run_minutes',
        kind: 'snooze',
        recommendation_id: 'bbb',
        created_epoch: 150,
        expires_epoch: 250,
      },
    ]);
  });

  it('removes both kinds of one zone field and says how many, surviving a reopen', () => {
    const repo = t.store().tuningDismissals;
    for (const kind of ['snooze', 'permanent'] as const) {
      repo.put({
        zone: 'front',
        field: 'sessions_per_week',
        kind,
        recommendation_id: 'x',
        created_epoch: 1,
        expires_epoch: null,
      });
    }
    repo.put({
      zone: 'back',
      field: 'sessions_per_week',
      kind: 'snooze',
      recommendation_id: 'y',
      created_epoch: 1,
      expires_epoch: 9,
    });
    const reopened = t.reopen().tuningDismissals;
    expect(reopened.remove('front', 'sessions_per_week')).toBe(2);
    expect(reopened.remove('front', 'sessions_per_week')).toBe(0);
    expect(reopened.all().map((d) => d.zone)).toEqual(['back']);
  });

  it('refuses a kind the spec does not name', () => {
    expect(() =>
      t.store().tuningDismissals.put({
        zone: 'front',
        field: 'x',
        kind: 'forever' as never,
        recommendation_id: 'x',
        created_epoch: 1,
        expires_epoch: null,
      }),
    ).toThrow(/CHECK/);
  });
});

describe('AnnouncementsRepository', () => {
  it('keeps the first epoch, moves the last, lists by prefix and removes', () => {
    const repo = t.store().announcements;
    repo.touch('anomaly:a', 10);
    repo.touch('anomaly:a', 20);
    repo.touch('anomaly:b', 30);
    repo.touch('tuning.digest', 40);
    expect(repo.get('anomaly:a')).toEqual({ key: 'anomaly:a', first_epoch: 10, last_epoch: 20 });
    expect(repo.withPrefix('anomaly:').map((a) => a.key)).toEqual(['anomaly:a', 'anomaly:b']);
    expect(repo.remove('anomaly:a')).toBe(true);
    expect(repo.get('anomaly:a')).toBeNull();
  });
});

describe('SessionPlansRepository', () => {
  it('lists a zone window oldest first with booleans and a null ceiling kept', () => {
    const repo = t.store().sessionPlans;
    const plan = {
      session_id: 's2',
      zone: 'front',
      date_local: '2025-06-02',
      epoch: 200,
      model: 'soil',
      planned_seconds: 1800,
      uncapped_seconds: 2400,
      session_capped: true,
      max_run_minutes: 30,
    };
    repo.record(plan);
    repo.record({ ...plan, session_id: 's1', epoch: 100, session_capped: false, max_run_minutes: null });
    repo.record({ ...plan, session_id: 's3', zone: 'back' });
    expect(
      repo.listWindow(0, 1000, 'front').map((p) => [p.session_id, p.session_capped, p.max_run_minutes]),
    ).toEqual([
      ['s1', false, null],
      ['s2', true, 30],
    ]);
    expect(repo.listWindow(150, 1000)).toHaveLength(2);
  });
});
