import type { AppliedConfig } from '../../server/src/config/config-types';
import type { JsonObject } from '../../server/src/config/json-walk';
import { configSchema } from '../../server/src/config/schema';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { computeIrrigation } from '../../server/src/irrigation/engine/engine';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import { NotifyService } from '../../server/src/notify/notify-service';
import type { Store } from '../../server/src/store/store';
import { NtfyPeer, type NtfyMessage } from '../helpers/ntfy-peer';
import { makeDataDir } from '../helpers/service';
import { forecast, input, NOW, windyMorning } from '../irrigation/engine/fixtures';
import { tempStore } from '../store/temp-db';
import { appliedConfig as weatherConfig, makeHarness } from '../weather/core/harness';

/**
 * The bus subscriber and the service around it, with an ntfy peer as the
 * channel: the causes decided over time (today's skip once per day, a
 * source offline past the window and back, restart_required turning true,
 * the weekly digest), coalescing, and routing choices.
 */

const stores = tempStore();
const T0 = Date.UTC(2026, 6, 15, 9, 0, 0);
const peers: NtfyPeer[] = [];
const services: NotifyService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  for (const p of peers.splice(0)) await p.close();
});

function applied(ntfyBase: string, extra: JsonObject = {}, units = 'metric'): AppliedConfig {
  const document: JsonObject = {
    schema_version: 2,
    deployment: { location: { lat: 30.27, lon: -97.74 }, timezone: 'America/Chicago', units },
    zones: {
      front_lawn: { display_name: 'Front lawn', species: 'bermuda' },
      back_beds: { display_name: 'Back beds', species: 'ornamental_shrubs' },
    },
    notifications: { ntfy: { base_url: ntfyBase, topic: 'yard' } },
    ...extra,
  };
  return { config: configSchema.parse(document), document, appliedAtEpoch: 0, revision: 1 };
}

interface Rig {
  bus: EventBus;
  clock: ManualClock;
  peer: NtfyPeer;
  service: NotifyService;
  store: Store;
  messages(): Promise<NtfyMessage[]>;
}

async function rig(
  options: {
    bus?: EventBus;
    clock?: ManualClock;
    store?: Store;
    peer?: NtfyPeer;
    retryDelaysMs?: readonly number[];
    units?: 'imperial' | 'metric';
  } = {},
): Promise<Rig> {
  const peer = options.peer ?? (await new NtfyPeer({ topic: 'yard' }).start());
  if (!options.peer) peers.push(peer);
  const bus = options.bus ?? new EventBus();
  const clock = options.clock ?? new ManualClock(T0);
  const store = options.store ?? stores.store();
  const config = applied(peer.baseUrl, {}, options.units);
  const service = new NotifyService({
    bus,
    clock,
    logger: silentLogger(),
    config: () => config,
    store,
    dataDir: makeDataDir(),
    fetch,
    publicUrl: null,
    retryDelaysMs: options.retryDelaysMs ?? [50, 50],
  });
  services.push(service);
  await service.start();
  return {
    bus,
    clock,
    peer,
    service,
    store,
    // Queues send on their own: let them drain before looking.
    messages: async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return peer.messages;
    },
  };
}

function snapshot(
  date: string,
  start: number,
  zones: { zone: string; due: boolean; planned: number; reason: string }[],
  extra: Partial<IrrigationSnapshot> = {},
) {
  return {
    today_window: { start, finish: start + 3 * 3600, kind: 'pre_dawn', min_temp_f: null },
    skip_check: { is_paused: false },
    restart_required: false,
    restart_reasons: [],
    zones: zones.map((z) => ({ slug: z.zone, math: {} })),
    water_plan: [
      {
        date_local: date,
        zones: zones.map((z) => ({
          zone: z.zone,
          name: z.zone,
          planned_seconds: z.planned,
          water_need: z.due ? 'due' : 'none',
          reason_code: z.planned > 0 ? 'water' : 'rain_skip',
          reason: z.planned > 0 ? 'due' : z.reason,
        })),
      },
    ],
    ...extra,
  } as unknown as IrrigationSnapshot;
}

describe("today's skip", () => {
  const ZONES = [
    { zone: 'front_lawn', due: true, planned: 0, reason: '0.4 in of rain expected in the next 24 h' },
    { zone: 'back_beds', due: false, planned: 0, reason: 'soil holds enough water' },
  ];

  it('is told once per local day, when the run window opens, whatever the recomputes', async () => {
    const r = await rig();
    const start = Math.floor(T0 / 1000) + 600;
    r.bus.emit('irrigation.snapshot', snapshot('2026-07-15', start, ZONES));
    expect(await r.messages()).toEqual([]);
    r.clock.advance(600_000);
    for (let i = 0; i < 5; i++) r.bus.emit('irrigation.snapshot', snapshot('2026-07-15', start, ZONES));
    const messages = await r.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      title: 'Not watering Front lawn today',
      // The install is metric: a reason written in inches (before a units change) reads in mm.
      message: 'Front lawn: 10.2 mm of rain expected in the next 24 h',
      tags: ['droplet', 'skip_today'],
    });

    // A restart the same day does not tell it again (the date is kept in the database).
    await r.service.stop();
    const again = await rig({ clock: r.clock, store: r.store, bus: new EventBus(), peer: r.peer });
    again.bus.emit('irrigation.snapshot', snapshot('2026-07-15', start, ZONES));
    expect(await again.messages()).toHaveLength(1);

    // The next day is a new day.
    again.clock.advance(86_400_000);
    again.bus.emit('irrigation.snapshot', snapshot('2026-07-16', start + 86_400, ZONES));
    expect((await again.messages()).map((m) => m.title)).toEqual([
      'Not watering Front lawn today',
      'Not watering Front lawn today',
    ]);
  });

  it('says nothing on a day every due zone waters', async () => {
    const r = await rig();
    r.bus.emit(
      'irrigation.snapshot',
      snapshot('2026-07-15', Math.floor(T0 / 1000) - 60, [
        { zone: 'front_lawn', due: true, planned: 900, reason: 'due' },
      ]),
    );
    expect(await r.messages()).toEqual([]);
  });

  // The due zones are held by the forecast wind: each line says so, in the install's units.
  it.each([
    ['imperial', 'peak wind over the run window is 18 mph, above 15 mph', /km\/h|\d mm\b|°C/],
    ['metric', 'peak wind over the run window is 29 km/h, above 24.1 km/h', /mph|\d in\b|°F/],
  ] as const)("tells the engine's reasons in %s units", async (units, wind, otherSystem) => {
    const out = computeIrrigation(windyMorning(units));
    const r = await rig({ units, clock: new ManualClock(NOW * 1000) });
    r.bus.emit('irrigation.snapshot', out.snapshot);
    const [message] = await r.messages();
    expect(message?.message).toContain(`Front lawn: Windy forecast: ${wind}`);
    expect(message?.message).not.toMatch(otherSystem);
  });
});

it('tells restart_required when it turns true, not on every snapshot while it stays', async () => {
  const r = await rig();
  const held = {
    restart_required: true,
    restart_reasons: ['controller "os" changed while a valve was open on it: restart to apply'],
  };
  const future = Math.floor(T0 / 1000) + 3600;
  r.bus.emit('irrigation.snapshot', snapshot('2026-07-15', future, []));
  for (let i = 0; i < 3; i++) r.bus.emit('irrigation.snapshot', snapshot('2026-07-15', future, [], held));
  const messages = await r.messages();
  expect(messages).toEqual([
    expect.objectContaining({
      title: 'Restart Raincheck to apply a change',
      message: held.restart_reasons[0],
      priority: 4,
    }),
  ]);
});

describe('weather source offline past the hard-offline window', () => {
  it('is told once when the source goes quiet for 30 minutes, and once when it is back', async () => {
    const weather = makeHarness(weatherConfig([{ id: 'station', kind: 'probe', priority: 100 }]), {
      startEpoch: Math.floor(T0 / 1000),
    });
    await weather.service.start();
    try {
      const r = await rig({ bus: weather.bus, clock: weather.clock });
      weather.publish('station', { air_temp_f: 80 });
      weather.service.tick();
      weather.advance(29 * 60);
      weather.service.tick();
      expect(await r.messages()).toEqual([]);
      for (let i = 0; i < 4; i++) {
        weather.advance(60);
        weather.service.tick();
      }
      expect(await r.messages()).toEqual([
        expect.objectContaining({ title: 'Weather source station is offline', priority: 4 }),
      ]);
      weather.publish('station', { air_temp_f: 81 });
      weather.service.tick();
      weather.service.tick();
      expect((await r.messages()).map((m) => m.title)).toEqual([
        'Weather source station is offline',
        'Weather source station is back',
      ]);
    } finally {
      await weather.service.stop();
    }
  });

  it('does not call a source offline in its first 30 minutes after a start', async () => {
    const weather = makeHarness(weatherConfig([{ id: 'station', kind: 'probe', priority: 100 }]), {
      startEpoch: Math.floor(T0 / 1000),
    });
    await weather.service.start();
    try {
      const r = await rig({ bus: weather.bus, clock: weather.clock });
      for (let minute = 0; minute < 29; minute++) {
        weather.advance(60);
        weather.service.tick();
      }
      expect(await r.messages()).toEqual([]);
      weather.advance(120);
      weather.service.tick();
      expect((await r.messages()).map((m) => m.title)).toEqual(['Weather source station is offline']);
    } finally {
      await weather.service.stop();
    }
  });
});

describe('running without a forecast (rule 4)', () => {
  const without = computeIrrigation(input({ forecast: forecast({ hourly: [] }) })).snapshot;
  const withForecast = computeIrrigation(input()).snapshot;
  const told = async (r: Rig) =>
    (await r.messages()).filter((m) => m.tags?.includes('forecast_absent')).map((m) => m.title);

  it('is told once the yard has decided without one for 30 minutes, once only, across a restart; then once when it is back', async () => {
    const r = await rig({ clock: new ManualClock(NOW * 1000) });
    for (let minute = 0; minute < 29; minute++) {
      r.bus.emit('irrigation.snapshot', without);
      r.clock.advance(60_000);
    }
    expect(await told(r)).toEqual([]);
    r.clock.advance(60_000);
    for (let i = 0; i < 3; i++) r.bus.emit('irrigation.snapshot', without);
    expect(await told(r)).toEqual(['Watering without a forecast']);
    const [message] = (await r.messages()).filter((m) => m.tags?.includes('forecast_absent'));
    expect(message?.message).toMatch(/^No usable forecast for 30 min \(the last one is \d+ min old\)/);

    // A restart does not tell it again (what was told is kept in the database) ...
    await r.service.stop();
    const again = await rig({ clock: r.clock, store: r.store, bus: new EventBus(), peer: r.peer });
    again.clock.advance(3_600_000);
    again.bus.emit('irrigation.snapshot', without);
    expect(await told(again)).toEqual(['Watering without a forecast']);
    // ... and remembers to say it is back, once.
    for (let i = 0; i < 3; i++) again.bus.emit('irrigation.snapshot', withForecast);
    expect(await told(again)).toEqual(['Watering without a forecast', 'The forecast is back']);
  });

  it('says nothing about a forecast that is missing only for a while, nor "back" when absent was never told', async () => {
    const r = await rig({ clock: new ManualClock(NOW * 1000) });
    r.bus.emit('irrigation.snapshot', without);
    r.clock.advance(20 * 60_000);
    r.bus.emit('irrigation.snapshot', withForecast);
    r.clock.advance(20 * 60_000);
    r.bus.emit('irrigation.snapshot', without);
    r.clock.advance(20 * 60_000);
    r.bus.emit('irrigation.snapshot', without);
    r.bus.emit('irrigation.snapshot', withForecast);
    expect(await told(r)).toEqual([]);
  });
});

describe('a binding run cap (rule 6)', () => {
  it('goes out the same day as its own notice per zone, linked to the zone, not as the generic anomaly', async () => {
    const r = await rig();
    const description =
      "The 60 min run cap left zone front_lawn short on its last 2 watered sessions, and the zone is past RAW. Raise the zone's max_run_minutes to 90.";
    r.bus.emit('anomaly.new', {
      severity: 'warning',
      type: 'cap_binding_past_raw',
      description,
      epoch: 0,
      subject: 'front_lawn',
    });
    r.bus.emit('anomaly.new', {
      severity: 'warning',
      type: 'cap_binding_past_raw',
      description: description.replace('front_lawn', 'back_beds'),
      epoch: 0,
      subject: 'back_beds',
    });
    const messages = await r.messages();
    expect(messages.map((m) => [m.title, m.tags])).toEqual([
      ['Front lawn: the run cap leaves it short', ['warning', 'cap_binding']],
      ['Back beds: the run cap leaves it short', ['warning', 'cap_binding']],
    ]);
    expect(messages[0]?.message).toBe(description);
  });
});

describe('weekly tuning', () => {
  it('sends the digest of suggestions that are not silenced, and nothing for an empty one', async () => {
    const r = await rig();
    r.bus.emit('tuning.digest', { window_days: 14, epoch: 1, recommendations: [] });
    expect(await r.messages()).toEqual([]);
    r.bus.emit('tuning.digest', {
      window_days: 14,
      epoch: 2,
      recommendations: [
        {
          zone: 'front_lawn',
          field: 'max_run_minutes',
          id: 'r1',
          headline: 'Runs hit the 60 min cap on 5 days: allow 75',
        },
        {
          zone: 'back_beds',
          field: 'precip_rate_mm_hr',
          id: 'r2',
          headline: 'Measured rate is 12 mm/h, not 18',
        },
      ],
    });
    expect(await r.messages()).toEqual([
      expect.objectContaining({
        title: '2 tuning suggestions for Front lawn and Back beds',
        message:
          'Front lawn: Runs hit the 60 min cap on 5 days: allow 75\nBack beds: Measured rate is 12 mm/h, not 18',
      }),
    ]);
  });
});

describe('coalescing and routing', () => {
  const failure = {
    controller_id: 'os',
    kind: 'opensprinkler',
    code: 'controller_unreachable',
    message: 'controller "os": fetch failed (ECONNREFUSED)',
    zone: null,
    action: 'readback',
    epoch: 0,
  };

  it('drops the same failure inside its window but lets a different one through', async () => {
    const r = await rig();
    r.bus.emit('controller.failure', failure);
    r.bus.emit('controller.failure', failure);
    r.clock.advance(3600_000);
    r.bus.emit('controller.failure', failure);
    r.bus.emit('controller.failure', {
      ...failure,
      code: 'controller_auth_failed',
      message: 'controller "os" rejected the credential: result 2',
    });
    const messages = await r.messages();
    expect(messages.map((m) => [m.title, m.priority])).toEqual([
      ['Controller os failed', 4],
      ['Controller os rejected its credential', 5],
    ]);
    r.clock.advance(6 * 3600_000);
    r.bus.emit('controller.failure', failure);
    expect(await r.messages()).toHaveLength(3);
  });

  it('follows the owner’s choice per event and channel, and keeps it in the database', async () => {
    const r = await rig();
    expect(r.service.status().events.find((e) => e.id === 'controller_failure')?.routes.ntfy).toBe(true);
    r.service.routing.update({ controller_failure: { ntfy: false } });
    r.bus.emit('controller.failure', failure);
    expect(await r.messages()).toEqual([]);
    expect(r.store.notificationRoutes.list()).toEqual([
      { event: 'controller_failure', channel: 'ntfy', enabled: false },
    ]);
    expect(() => r.service.routing.update({ no_such_event: { ntfy: true } })).toThrow(
      'unknown event "no_such_event"',
    );
    expect(() => r.service.routing.update({ anomaly: { pager: true } })).toThrow('unknown channel "pager"');
  });

  it('records each delivery and failure for the settings page and diagnostics', async () => {
    const r = await rig();
    r.bus.emit('anomaly.new', {
      severity: 'warning',
      type: 'rain_gauge_stuck',
      description: 'The gauge read 0 through 1.2 in of radar rain',
      epoch: 0,
    });
    await r.messages();
    await r.peer.close();
    r.bus.emit('valve.watchdog', {
      controller_id: 'os',
      zone: 'front_lawn',
      planned_end_epoch: 0,
      epoch: 0,
      closed: true,
      attempts: 1,
      by: 'watchdog',
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const ntfy = r.service.diagnostics().channels.find((c) => c.id === 'ntfy');
    expect(ntfy?.last_sent).toMatchObject({
      event: 'anomaly',
      title: 'Anomaly: rain gauge stuck',
      status: 'sent',
      attempts: 1,
    });
    expect(ntfy?.last_failure).toMatchObject({ event: 'valve_watchdog', status: 'failed', attempts: 3 });
    expect(ntfy?.last_failure?.detail).toMatch(/^gave up after 3 attempts: .*ECONNREFUSED/);
  });

  it('answers "Send a test" at once, even while the channel retries an earlier notice', async () => {
    const r = await rig({ retryDelaysMs: [3_600_000] });
    r.peer.failWith = [503];
    r.bus.emit('controller.failure', failure);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.service.status().channels.find((c) => c.id === 'ntfy')?.retrying).toMatchObject({
      title: 'Controller os failed',
      attempts: 1,
      detail: expect.stringMatching(/^HTTP 503/),
    });
    const [result] = await r.service.sendTest('ntfy');
    expect(result).toEqual({ channel: 'ntfy', status: 'sent', detail: 'published to topic yard' });
    expect(r.peer.messages.map((m) => m.title)).toEqual(['Raincheck test notice']);
    expect(r.service.status().recent[0]).toMatchObject({ event: 'test', status: 'sent', attempts: 1 });
  });
});
