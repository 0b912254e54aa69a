import { EventBus, type AnomalyEvent } from '../../../server/src/core/bus';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import type { AnomalyEvidence } from '../../../server/src/irrigation/anomalies/anomaly';
import { AnomalyService } from '../../../server/src/irrigation/anomalies/anomaly-service';
import {
  gatherAnomalyEvidence,
  storedFlowAlarms,
  type HeardEvidence,
} from '../../../server/src/irrigation/anomalies/evidence-source';
import { configSchema } from '../../../server/src/config/schema';
import { emptyDay } from '../../../server/src/weather-record/types';
import { tempStore } from '../../store/temp-db';
import { ledgerRow, recordSession } from '../tuning/recorded-history';
import { addDays, cleanEvidence, NOW, TODAY, TZ } from './evidence';

/**
 * The anomaly service: the TTL cache, `anomaly.new` once per new anomaly
 * (also across a restart, again after it cleared), what it hears on the bus,
 * and a failing detector not hiding the others.
 */

const stores = tempStore();

function rig(evidence: () => AnomalyEvidence, ttl: number | null = null) {
  const clock = new ManualClock(NOW * 1000);
  const bus = new EventBus();
  const announced: AnomalyEvent[] = [];
  bus.on('anomaly.new', (a) => announced.push(a));
  const heard: HeardEvidence[] = [];
  let gathered = 0;
  const make = () =>
    new AnomalyService({
      bus,
      clock,
      logger: silentLogger(),
      gather: (now, h) => {
        gathered += 1;
        heard.push(h);
        return { ...evidence(), nowEpoch: now };
      },
      ttlS: () => ttl,
      announced: stores.store().announcements,
    });
  return { clock, bus, announced, heard, make, gathered: () => gathered };
}

const offline = () => {
  const e = cleanEvidence();
  e.sources = [{ ...e.sources[0], status: 'offline' } as never];
  return e;
};

describe('the anomaly service', () => {
  it('caches for the TTL (an hour by default, llm.anomaly_ttl_s when set)', async () => {
    const r = rig(offline);
    const service = r.make();
    const first = service.list();
    expect(first.anomalies.map((a) => a.type)).toEqual(['station_offline']);
    r.clock.advance(3599_000);
    expect(service.list()).toBe(first);
    expect(r.gathered()).toBe(1);
    r.clock.advance(1000);
    expect(service.list().generated_epoch).toBe(NOW + 3600);
    expect(r.gathered()).toBe(2);

    const short = rig(offline, 60);
    const quick = short.make();
    quick.list();
    short.clock.advance(61_000);
    quick.list();
    expect(short.gathered()).toBe(2);
  });

  it('announces a new anomaly once while it persists, also across a restart, and again after it cleared', async () => {
    let broken = true;
    const r = rig(() => (broken ? offline() : cleanEvidence()));
    r.make().evaluate();
    r.make().evaluate(); // a restart: the same anomaly is not news
    expect(r.announced).toEqual([
      expect.objectContaining({ type: 'station_offline', severity: 'warning', epoch: NOW }),
    ]);
    expect(r.announced[0]?.description).toContain('Station station (tempest_udp) is offline');
    broken = false;
    r.make().evaluate();
    broken = true;
    r.clock.advance(60_000);
    r.make().evaluate();
    expect(r.announced).toHaveLength(2);
    expect(r.announced[1]?.epoch).toBe(NOW + 60);
  });

  it('hears controller failures, flow alarms and a pending restart on the bus', async () => {
    const r = rig(cleanEvidence);
    const service = r.make();
    await service.start();
    service.evaluate();
    expect(r.heard[0]).toEqual({ controllerFailures: [], flowAlarms: null, restartPendingSince: null });
    r.bus.emit('controller.failure', {
      controller_id: 'os1',
      kind: 'opensprinkler',
      code: 'controller_unreachable',
      message: 'timeout',
      zone: null,
      action: 'readback',
      epoch: NOW - 10,
    });
    r.bus.emit('flow.alarm', {
      zone: 'front',
      controller_id: 'os1',
      kind: 'none',
      rate_gpm: 0,
      baseline_gpm: 5,
      stopped: false,
      epoch: NOW - 5,
    });
    r.bus.emit('irrigation.snapshot', { restart_required: true } as never);
    r.clock.advance(3600_000);
    r.bus.emit('irrigation.snapshot', { restart_required: true } as never);
    service.evaluate();
    expect(r.heard[1]).toEqual({
      controllerFailures: [
        { controller_id: 'os1', epoch: NOW - 10, message: 'controller_unreachable: timeout' },
      ],
      flowAlarms: [expect.objectContaining({ zone: 'front', kind: 'none' })],
      restartPendingSince: NOW,
    });
    r.bus.emit('irrigation.snapshot', { restart_required: false } as never);
    service.evaluate();
    expect(r.heard[2]?.restartPendingSince).toBeNull();
    await service.stop();
  });

  it('a detector that throws does not hide the others', () => {
    const clock = new ManualClock(NOW * 1000);
    const service = new AnomalyService({
      bus: new EventBus(),
      clock,
      logger: silentLogger(),
      gather: () => offline(),
      announced: null,
      detectors: [
        {
          type: 'broken',
          detect: () => {
            throw new Error('bug');
          },
        },
        {
          type: 'fine',
          detect: () => [
            { severity: 'info', type: 'fine', subject: 's', description: 'd', evidence: [], fix: 'f' },
          ],
        },
      ],
    });
    expect(service.list().anomalies.map((a) => a.type)).toEqual(['fine']);
  });
});

describe('evidence the store keeps', () => {
  it('flow alarms come from the flow_alarms table, so a restart still sees the last day', () => {
    const store = stores.store();
    const alarm = (epoch: number, zone: string, kind: 'high' | 'low', stopped: boolean) =>
      store.flowAlarms.insert({
        epoch,
        zone,
        controller_id: 'os1',
        kind,
        rate_gpm: kind === 'high' ? 14 : 2,
        baseline_gpm: 6,
        stopped,
        session_id: null,
        note: 'test',
      });
    alarm(NOW - 2 * 86_400, 'front', 'high', true); // older than a day: not judged
    alarm(NOW - 3 * 3600, 'front', 'high', true);
    alarm(NOW - 3600, 'back', 'low', false);
    const heard: HeardEvidence[] = [];
    const service = new AnomalyService({
      bus: new EventBus(),
      clock: new ManualClock(NOW * 1000),
      logger: silentLogger(),
      gather: (now, h) => {
        heard.push(h);
        return { ...cleanEvidence(), nowEpoch: now, flowAlarms: h.flowAlarms };
      },
      announced: null,
      flowAlarms: (now) => storedFlowAlarms(store, now),
    });
    const found = service.evaluate().anomalies;
    expect(heard[0]?.flowAlarms).toEqual([
      {
        zone: 'front',
        controller_id: 'os1',
        kind: 'high',
        rate_gpm: 14,
        baseline_gpm: 6,
        stopped: true,
        epoch: NOW - 3 * 3600,
      },
      {
        zone: 'back',
        controller_id: 'os1',
        kind: 'low',
        rate_gpm: 2,
        baseline_gpm: 6,
        stopped: false,
        epoch: NOW - 3600,
      },
    ]);
    expect(found.map((a) => [a.type, a.subject, a.severity])).toEqual([
      ['flow_alarm', 'front', 'critical'],
      ['flow_alarm', 'back', 'warning'],
    ]);
  });

  it("the site's climate is read from the daily weather record: before the judged week, near the date, with the engine's ET0", () => {
    const store = stores.store();
    const days = [];
    for (let back = 1; back <= 120; back += 1) {
      const d = emptyDay(addDays(TODAY, -back));
      d.et0_native_mm = back; // a distinct value per day, to see which were read
      d.sources.et0_native_mm = { source: 'model_archive', source_id: 'test model', coverage: 1 };
      days.push(d);
    }
    store.weatherDays.upsert(days, 0);
    const config = configSchema.parse({
      schema_version: 2,
      deployment: { location: { lat: 40.7, lon: -74 } },
      engine: { et0_method: 'source_native' },
    });
    const live = {
      store,
      config,
      timezone: TZ,
      sources: [],
      forecast: null,
      irrigation: null,
      modelledKinds: new Set<string>(),
    };
    const heard = { controllerFailures: [], flowAlarms: null, restartPendingSince: null };
    const evidence = gatherAnomalyEvidence(live, NOW, heard);
    // Days 8..37 back: before the judged week (the last 7 days and today), within 30 + 7 days of today's date.
    expect(evidence.recordEt0.map((d) => d.et0_mm)).toEqual(Array.from({ length: 30 }, (_, i) => 37 - i));
    expect(evidence.recordEt0.at(-1)).toEqual({ date_local: addDays(TODAY, -8), et0_mm: 8 });
    expect(gatherAnomalyEvidence({ ...live, store: null }, NOW, heard).recordEt0).toEqual([]);
  });

  it('rule 6 from the store: two short sessions in a row and a ledger day past RAW announce cap_binding_past_raw once, with the zone', () => {
    const store = stores.store();
    const yesterday = addDays(TODAY, -1);
    recordSession(store, { zone: 'front', date: yesterday, planned_s: 3600, needed_s: 4800, cap_min: 60 });
    recordSession(store, { zone: 'front', date: TODAY, planned_s: 3600, needed_s: 5400, cap_min: 60 });
    store.soilLedger.write(
      'front',
      [ledgerRow('front', yesterday, { raw: 12, depletion: 14.2, seconds: 3600, net: 7.1 })],
      0,
    );
    const config = configSchema.parse({
      schema_version: 2,
      deployment: { location: { lat: 33.4, lon: -111.9 } },
      zones: { front: { display_name: 'Front', species: 'bermuda' } },
    });
    const live = {
      store,
      config,
      timezone: TZ,
      sources: [],
      forecast: null,
      irrigation: null,
      modelledKinds: new Set<string>(),
    };
    const bus = new EventBus();
    const announced: AnomalyEvent[] = [];
    bus.on('anomaly.new', (a) => announced.push(a));
    const make = () =>
      new AnomalyService({
        bus,
        clock: new ManualClock(NOW * 1000),
        logger: silentLogger(),
        gather: (now, heard) => gatherAnomalyEvidence(live, now, heard),
        announced: store.announcements,
      });
    const found = make().evaluate().anomalies;
    expect(found.map((a) => [a.type, a.subject, a.severity])).toEqual([
      ['cap_binding_past_raw', 'front', 'warning'],
    ]);
    expect(found[0]?.fix).toContain('max_run_minutes to 90');
    make().evaluate(); // a restart: not news again
    expect(announced).toEqual([
      expect.objectContaining({ type: 'cap_binding_past_raw', subject: 'front', severity: 'warning' }),
    ]);
  });
});
