import { systemClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { HaLink } from '../../server/src/ha/ha-link';
import { WEATHER_FIELDS } from '../../server/src/weather/fields';
import type {
  Reading,
  SourceBatch,
  SourceContext,
  SourceSink,
  WeatherSource,
} from '../../server/src/weather/source';
import {
  createHaPassthroughKind,
  HA_NOT_CONNECTED,
  haPassthroughConfigSchema,
} from '../../server/src/weather/sources/ha/passthrough';
import { HaPeer, PEER_TOKEN, waitFor, type PeerStateInput } from '../helpers/ha-peer';

class RecordingSink implements SourceSink {
  readonly batches: SourceBatch[] = [];
  readonly contacts: Array<{ ok: boolean; note?: string }> = [];

  publish(batch: SourceBatch): void {
    this.batches.push(batch);
  }

  contact(ok: boolean, note?: string): void {
    this.contacts.push(note === undefined ? { ok } : { ok, note });
  }

  get readings(): Reading[] {
    return this.batches.flatMap((batch) => batch.readings ?? []);
  }

  /** The latest reading per field. */
  latest(field: string): Reading | undefined {
    return this.readings.filter((r) => r.field === field).at(-1);
  }

  get lastContact(): { ok: boolean; note?: string } | undefined {
    return this.contacts.at(-1);
  }
}

const T0 = '2026-05-01T12:00:00.250000+00:00';
const T0_EPOCH = Date.parse(T0) / 1000 - 0.25;
const T1 = '2026-05-01T12:00:30.000000+00:00';

const STATES: PeerStateInput[] = [
  {
    entity_id: 'sensor.outdoor_temperature',
    state: '20.0',
    attributes: { unit_of_measurement: '°C', device_class: 'temperature' },
    last_changed: T0,
    last_updated: T0,
  },
  {
    entity_id: 'sensor.outdoor_humidity',
    state: 'unavailable',
    attributes: { unit_of_measurement: '%', device_class: 'humidity' },
    last_changed: T0,
    last_updated: T0,
  },
  {
    entity_id: 'sensor.barometer',
    state: '1013.25',
    attributes: { unit_of_measurement: 'hPa', device_class: 'atmospheric_pressure' },
    last_changed: T0,
    last_updated: T0,
  },
  {
    entity_id: 'sensor.wind_speed',
    state: '16.09344',
    attributes: { unit_of_measurement: 'km/h', device_class: 'wind_speed' },
    last_changed: T0,
    last_updated: T0,
  },
  {
    entity_id: 'sensor.rain_today',
    state: '0.0',
    attributes: { unit_of_measurement: 'mm', device_class: 'precipitation' },
    last_changed: T0,
    last_updated: T0,
    // A steady value HA keeps hearing: last_reported moves, last_updated does not.
    last_reported: T1,
  },
  {
    entity_id: 'sensor.kitchen_temperature',
    state: '23.0',
    attributes: { unit_of_measurement: '°C' },
    last_changed: T0,
    last_updated: T0,
  },
];

const ENTITIES = {
  air_temp_f: 'sensor.outdoor_temperature',
  rh_pct: 'sensor.outdoor_humidity',
  pressure_inhg: 'sensor.barometer',
  wind_avg_mph: 'sensor.wind_speed',
  rain_in_today: 'sensor.rain_today',
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPeer(): Promise<HaPeer> {
  const peer = await HaPeer.start({ states: STATES });
  cleanups.push(() => peer.close());
  return peer;
}

async function startLink(peer: HaPeer): Promise<HaLink> {
  const link = new HaLink({
    url: peer.url,
    token: PEER_TOKEN,
    logger: silentLogger(),
    clock: systemClock,
    retryMinMs: 20,
    retryMaxMs: 100,
  });
  cleanups.push(() => link.stop());
  await link.start();
  return link;
}

function createSource(
  getLink: () => HaLink | null,
  config: Record<string, unknown> = { entities: ENTITIES },
): { source: WeatherSource; sink: RecordingSink } {
  const sink = new RecordingSink();
  const ctx: SourceContext = {
    id: 'ha_weather',
    config,
    clock: systemClock,
    logger: silentLogger(),
    location: { lat: 40.015, lon: -105.27, elevationM: 1655, timezone: 'America/Denver' },
    sink,
    fetch,
  };
  const source = createHaPassthroughKind(getLink).create(ctx);
  cleanups.push(() => source.stop());
  return { source, sink };
}

describe('ha_passthrough kind', () => {
  it('describes itself', () => {
    const kind = createHaPassthroughKind(() => null);
    expect(kind.kind).toBe('ha_passthrough');
    expect(kind.provides).toEqual(WEATHER_FIELDS);
    expect(kind.cloud).toBeUndefined();
  });

  it('validates the entity map', () => {
    expect(haPassthroughConfigSchema.safeParse({ entities: ENTITIES }).success).toBe(true);
    expect(haPassthroughConfigSchema.parse({ entities: ENTITIES }).refresh_s).toBe(300);

    const badField = haPassthroughConfigSchema.safeParse({ entities: { temperature: 'sensor.t' } });
    expect(badField.success).toBe(false);
    expect(badField.error?.issues[0]?.path).toEqual(['entities', 'temperature']);

    const badEntity = haPassthroughConfigSchema.safeParse({
      entities: { air_temp_f: 'Outdoor Temperature' },
    });
    expect(badEntity.success).toBe(false);
    expect(badEntity.error?.issues[0]?.message).toMatch(/entity id/);

    expect(haPassthroughConfigSchema.safeParse({ entities: {} }).success).toBe(false);
    expect(haPassthroughConfigSchema.safeParse({ entities: ENTITIES, extra: 1 }).success).toBe(false);
  });

  it('refuses to start with an invalid config', async () => {
    const { source } = createSource(() => null, { entities: { nope: 'sensor.x' } });
    await expect(source.start()).rejects.toThrow(/invalid ha_passthrough config: entities\.nope/);
  });
});

describe('ha_passthrough source', () => {
  it('publishes initial readings converted to snapshot units, stamped with HA observation times', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();

    expect(sink.lastContact).toEqual({ ok: true });
    expect(sink.batches).toHaveLength(1);
    const byField = new Map(sink.readings.map((r) => [r.field, r]));
    expect(byField.get('air_temp_f')?.value).toBeCloseTo(68, 10);
    expect(byField.get('pressure_inhg')?.value).toBeCloseTo(29.921, 3);
    expect(byField.get('wind_avg_mph')?.value).toBeCloseTo(10, 4);
    expect(byField.get('rain_in_today')?.value).toBe(0);
    // 'unavailable' is no value: null, never 0.
    expect(byField.get('rh_pct')).toEqual({ field: 'rh_pct', value: null, observedEpoch: T0_EPOCH });

    expect(byField.get('air_temp_f')?.observedEpoch).toBe(T0_EPOCH);
    // last_reported is newer than last_updated for the steady rain gauge.
    expect(byField.get('rain_in_today')?.observedEpoch).toBe(Date.parse(T1) / 1000);
    // Unmapped entities are not read.
    expect(sink.readings).toHaveLength(5);
    expect(link.health().snapshot_source).toBe('ha_weather');
  });

  it('follows live state changes with unit conversion and ignores other entities', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    const before = sink.readings.length;

    peer.emitStateChange('sensor.kitchen_temperature', { state: '24.0' });
    peer.emitStateChange('sensor.outdoor_temperature', { state: '25.0' });
    peer.emitStateChange('sensor.outdoor_humidity', { state: '55' });
    peer.emitStateChange('sensor.barometer', { state: '29.80', attributes: { unit_of_measurement: 'inHg' } });
    peer.emitStateChange('sensor.wind_speed', {
      state: '4.4704',
      attributes: { unit_of_measurement: 'm/s' },
    });
    peer.emitStateChange('sensor.rain_today', { state: '12.7' });
    await waitFor(() => sink.readings.length === before + 5, 'five live readings');

    expect(sink.latest('air_temp_f')?.value).toBeCloseTo(77, 10);
    expect(sink.latest('rh_pct')?.value).toBe(55);
    expect(sink.latest('pressure_inhg')?.value).toBe(29.8);
    expect(sink.latest('wind_avg_mph')?.value).toBeCloseTo(10, 4);
    expect(sink.latest('rain_in_today')?.value).toBeCloseTo(0.5, 10);
    const nowEpoch = Date.now() / 1000;
    expect(sink.latest('air_temp_f')?.observedEpoch).toBeGreaterThan(nowEpoch - 5);
    expect(sink.latest('air_temp_f')?.observedEpoch).toBeLessThanOrEqual(nowEpoch);
    expect(sink.lastContact).toEqual({ ok: true });

    peer.emitStateChange('sensor.outdoor_temperature', { state: 'unknown' });
    await waitFor(() => sink.readings.length === before + 6, 'the unknown state');
    expect(sink.latest('air_temp_f')?.value).toBeNull();
  });

  it('gives no value for a unit the field cannot take, or for a removed entity', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');

    peer.emitStateChange('sensor.outdoor_humidity', {
      state: '21',
      attributes: { unit_of_measurement: '°C' },
    });
    await waitFor(() => sink.latest('rh_pct')?.observedEpoch !== T0_EPOCH, 'the mis-unit state');
    expect(sink.latest('rh_pct')?.value).toBeNull();

    peer.emitStateChange('sensor.barometer', null);
    await waitFor(() => sink.latest('pressure_inhg')?.value === null, 'the removal');
  });

  it('re-reads states after a reconnect to cover what changed while the link was down', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');

    const contacts = sink.contacts.length;
    peer.dropConnections();
    const changedWhileDown = new Date(Date.now() - 1000).toISOString();
    peer.setState({
      entity_id: 'sensor.outdoor_temperature',
      state: '30.0',
      attributes: { unit_of_measurement: '°C' },
      last_updated: changedWhileDown,
    });
    await waitFor(() => sink.latest('air_temp_f')?.value === 86, 'the re-read after reconnect');
    expect(sink.contacts.slice(contacts)).toEqual(
      expect.arrayContaining([{ ok: false, note: HA_NOT_CONNECTED }, { ok: true }]),
    );
    expect(sink.lastContact).toEqual({ ok: true });
    expect(sink.latest('air_temp_f')?.observedEpoch).toBe(Math.floor(Date.parse(changedWhileDown) / 1000));
  });

  it('does not let an older state replace a newer one', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    const before = sink.readings.length;

    peer.emitStateChange('sensor.outdoor_temperature', {
      state: '10.0',
      last_updated: '2026-04-30T12:00:00.000000+00:00',
    });
    peer.emitStateChange('sensor.barometer', { state: '1000' });
    await waitFor(() => sink.readings.length > before, 'the newer barometer reading');
    expect(sink.readings.slice(before).map((r) => r.field)).toEqual(['pressure_inhg']);
    expect(sink.latest('air_temp_f')?.value).toBeCloseTo(68, 10);
  });

  it('reports Home Assistant not connected when there is no link', async () => {
    const { source, sink } = createSource(() => null);
    await source.start();
    expect(sink.contacts).toEqual([{ ok: false, note: HA_NOT_CONNECTED }]);
    expect(sink.batches).toEqual([]);
  });

  it('reports Home Assistant not connected while the link is down, then reads once it connects', async () => {
    const peer = await startPeer();
    const link = new HaLink({
      url: peer.url,
      token: PEER_TOKEN,
      logger: silentLogger(),
      clock: systemClock,
      retryMinMs: 20,
    });
    cleanups.push(() => link.stop());
    const { source, sink } = createSource(() => link);
    await source.start();
    expect(sink.contacts).toEqual([{ ok: false, note: HA_NOT_CONNECTED }]);
    expect(sink.batches).toEqual([]);

    await link.start();
    await waitFor(() => sink.readings.length === 5, 'the initial read after connect');
    expect(sink.lastContact).toEqual({ ok: true });
    expect(sink.latest('air_temp_f')?.value).toBeCloseTo(68, 10);
  });

  it('finds a link that appears later and re-reads periodically to pick up last_reported', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    let available: HaLink | null = null;
    const { source, sink } = createSource(() => available, { entities: ENTITIES, refresh_s: 1 });
    await source.start();
    expect(sink.contacts).toEqual([{ ok: false, note: HA_NOT_CONNECTED }]);

    available = link;
    await waitFor(() => sink.readings.length === 5, 'the first read once the link exists', 3_000);
    // The gauge repeats 0.0: HA moves last_reported and fires no state_changed.
    const reported = new Date(Date.now() - 500).toISOString();
    peer.setState({ ...STATES[4]!, last_reported: reported });
    await waitFor(
      () => sink.latest('rain_in_today')?.observedEpoch === Math.floor(Date.parse(reported) / 1000),
      'the periodic re-read',
      3_000,
    );
    expect(sink.latest('rain_in_today')?.value).toBe(0);
    // Unchanged entities are not published again.
    expect(sink.readings.filter((r) => r.field === 'air_temp_f')).toHaveLength(1);
  });

  it('stops listening and withdraws from the health block on stop', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    const { source, sink } = createSource(() => link);
    await source.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    await source.stop();

    expect(link.health().snapshot_source).toBeNull();
    await waitFor(() => peer.subscriptionCount() === 0, 'the unsubscribe');
    const published = sink.readings.length;
    peer.emitStateChange('sensor.outdoor_temperature', { state: '31.0' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sink.readings).toHaveLength(published);
  });
});
