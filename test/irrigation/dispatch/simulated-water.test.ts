import { dispatchRig, RIG_T0, type DispatchRig } from '../../helpers/dispatch-rig';
import { silentLogger } from '../../../server/src/core/logger';
import { reconcileOpenRuns } from '../../../server/src/irrigation/dispatch/reconcile';
import { zoneLedger } from '../../../server/src/irrigation/engine/applied-water';
import { localCalendar } from '../../../server/src/irrigation/skip/local-days';
import { dailyIrrigation } from '../../../server/src/irrigation/soil/irrigation-evidence';
import { tempStore } from '../../store/temp-db';

/**
 * The demo's synthetic yard (rule 8): in demo mode (`features.demo_mode`) the
 * dry-run controller's pretend runs water the demo's yard, recorded with
 * evidence `simulated` and no amounts (never a real yard's applied water);
 * the soil reads them only while the config in force is the demo's. A
 * dry-run controller outside demo mode records `commanded` pretend rows that
 * never count, not even under a demo config.
 */

const stores = tempStore();
const ZONES = { front_lawn: { controller_station: '1', sprinkler_type: 'rotor', area_sqft: 2400 } };
const CONTROLLERS = [{ id: 'dry', kind: 'dry_run', default: true }];
const cal = localCalendar('UTC', RIG_T0);
const TODAY = cal.dateOf(RIG_T0);

let rig: DispatchRig | null = null;
afterEach(async () => {
  await rig?.stop();
  rig = null;
});

async function runTenMinutes(demo: boolean) {
  rig = await dispatchRig(stores.store(), {
    controllers: CONTROLLERS,
    zones: ZONES,
    ...(demo ? { features: { demo_mode: true } } : {}),
  });
  await rig.dispatcher.run({ zone: 'front_lawn', seconds: 600, requester: 'schedule', sessionId: 's-1' });
  rig.at(601);
  rig.dispatcher.tick();
  const rows = rig.rows('front_lawn');
  expect(rows).toHaveLength(1);
  return rows;
}

const soilSeconds = (rows: Parameters<typeof dailyIrrigation>[1], syntheticYard: boolean) =>
  dailyIrrigation('front_lawn', rows, cal, 2400, syntheticYard).get(TODAY)?.seconds ?? 0;

describe("the demo's pretend controller waters the demo's synthetic yard", () => {
  it('in demo mode a run is recorded simulated, with no applied amounts, and the demo soil takes its seconds once', async () => {
    const rows = await runTenMinutes(true);
    expect(rows[0]).toMatchObject({
      source: 'dry_run',
      status: 'completed',
      duration_s: 600,
      evidence: 'simulated',
      applied_mm: null,
      volume_gal: null,
    });
    expect(rig?.route('front_lawn')).toMatchObject({ simulated: true, synthetic_yard: true });
    const day = dailyIrrigation('front_lawn', rows, cal, 2400, true).get(TODAY);
    expect(day).toMatchObject({ seconds: 600, rate_seconds: 600, metered_mm: 0, evidence: 'simulated' });
    // The same rows twice (a request row read again) still count once.
    expect(soilSeconds([...rows, ...rows], true)).toBe(600);
    const ledger = zoneLedger('front_lawn', rows, cal, 2400, true);
    expect(ledger.counted_rows).toBe(1);
    // Outside the demo's config the very same rows are pretend water: nothing.
    expect(soilSeconds(rows, false)).toBe(0);
    expect(zoneLedger('front_lawn', rows, cal, 2400, false).ignored_rows.dry_run).toBe(1);
    expect(rig?.credited('front_lawn')).toBe(0);
  });

  it('outside demo mode a dry-run controller records commanded pretend rows that never count', async () => {
    const rows = await runTenMinutes(false);
    expect(rows[0]).toMatchObject({
      source: 'dry_run',
      status: 'completed',
      evidence: 'commanded',
      applied_mm: null,
    });
    expect(rig?.route('front_lawn')).toMatchObject({ simulated: true, synthetic_yard: false });
    expect(soilSeconds(rows, false)).toBe(0);
    expect(soilSeconds(rows, true)).toBe(0);
  });

  it('a simulated label on anything but a completed dry-run row counts nothing', () => {
    const base = {
      zone: 'front_lawn',
      start_epoch: RIG_T0,
      duration_s: 600,
      skip_reason: null,
      source: 'dry_run',
      status: 'completed',
      evidence: 'simulated',
    } as const;
    expect(soilSeconds([base], true)).toBe(600);
    expect(soilSeconds([{ ...base, source: 'ha_refresher' }], true)).toBe(0);
    expect(soilSeconds([{ ...base, status: 'aborted' }], true)).toBe(0);
    expect(soilSeconds([{ ...base, skip_reason: 'rain_now' }], true)).toBe(0);
  });

  it.each([
    [true, 'simulated'],
    [false, 'commanded'],
  ])(
    'a pretend run the service was down for is settled at boot as its yard says (demo %s: %s)',
    async (demo, kind) => {
      rig = await dispatchRig(stores.store(), {
        controllers: CONTROLLERS,
        zones: ZONES,
        ...(demo ? { features: { demo_mode: true } } : {}),
      });
      const id = rig.store.runs.insert({
        session_id: 's-down',
        zone: 'front_lawn',
        start_epoch: RIG_T0,
        duration_s: 600,
        skip_reason: null,
        source: 'dry_run',
        status: 'running',
        controller_id: 'dry',
        applied_mm: null,
        volume_gal: null,
        note: null,
        cycle_index: null,
        cycle_count: null,
      });
      rig.at(900);
      await reconcileOpenRuns({
        clock: rig.clock,
        logger: silentLogger(),
        ledger: rig.ledger,
        driver: rig.manager,
        dispatcher: rig.dispatcher,
        observer: rig.observer,
        state: rig.store.controls,
        zoneConfig: () => undefined,
      });
      const row = rig.rows('front_lawn').find((r) => r.id === id);
      expect(row).toMatchObject({ status: 'completed', duration_s: 600, evidence: kind, applied_mm: null });
    },
  );
});
