import { DispatchError } from '../../../server/src/irrigation/dispatch/dispatch-error';
import { dispatchRig, type DispatchRig } from '../../helpers/dispatch-rig';
import { tempStore } from '../../store/temp-db';

/**
 * The restrictions bind every run on the one dispatch path (main.ts wiring,
 * dry-run controller, manual clock). T0 is Wednesday 2026-07-15 05:00 EDT.
 */

const stores = tempStore();
let rig: DispatchRig | null = null;

async function rigWith(restrictions: Record<string, unknown>[]): Promise<DispatchRig> {
  rig = await dispatchRig(stores.store(), {
    controllers: [{ id: 'dry', kind: 'dry_run', default: true }],
    zones: { lawn: { controller_station: '1', sprinkler_type: 'spray' } },
    restrictions,
  });
  return rig;
}

afterEach(async () => {
  await rig?.stop();
  rig = null;
});

async function refusal(promise: Promise<unknown>): Promise<DispatchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DispatchError);
  return err as DispatchError;
}

it('a forced run on a forbidden date is refused with 409 and the rule, and no row is written', async () => {
  const r = await rigWith([{ name: 'even days', day_parity: 'even' }]);
  const err = await refusal(r.dispatcher.run({ zone: 'lawn', seconds: 300, requester: 'manual' }));
  expect([err.status, err.code]).toEqual([409, 'restricted_day']);
  expect(err.message).toMatch(/restriction "even days": 2026-07-15 is an odd day/);
  expect(r.rows('lawn')).toEqual([]);
});

it('a run cut at the start of forbidden hours records why, and the day cap counts what ran', async () => {
  const r = await rigWith([
    { name: 'morning', forbidden_hours: ['05:20-07:00'] },
    { name: 'cap', max_minutes_per_day: 25 },
  ]);
  const first = await r.dispatcher.run({ zone: 'lawn', seconds: 3600, requester: 'manual' });
  expect(first).toMatchObject({ seconds: 1200, clamped: true });
  expect(r.rows('lawn')[0]?.note).toBe(
    'cut from 3600 s to 1200 s by restriction "morning" forbids watering from 05:20',
  );
  r.at(1200);
  r.dispatcher.tick();
  await first.run.done;
  r.at(1210);
  const inside = await refusal(r.dispatcher.run({ zone: 'lawn', seconds: 60, requester: 'schedule' }));
  expect(inside.code).toBe('restricted_hours');
  r.at(2 * 3600 + 60); // 07:01: allowed again, 5 of the 25 minutes are left
  const second = await r.dispatcher.run({ zone: 'lawn', seconds: 3600, requester: 'schedule' });
  expect(second.seconds).toBe(300);
  r.at(2 * 3600 + 60 + 300);
  r.dispatcher.tick();
  await second.run.done;
  r.at(3 * 3600);
  const spent = await refusal(r.dispatcher.run({ zone: 'lawn', seconds: 60, requester: 'manual' }));
  expect(spent.code).toBe('restriction_daily_limit');
});

it('without rules a run is not touched', async () => {
  const r = await rigWith([]);
  const started = await r.dispatcher.run({ zone: 'lawn', seconds: 3600, requester: 'manual' });
  expect(started).toMatchObject({ seconds: 3600, clamped: false });
});
