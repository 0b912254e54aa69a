import { systemClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { HaLink } from '../../server/src/ha/ha-link';
import type { ExtraReading, SourceBatch, SourceContext, SourceSink } from '../../server/src/weather/source';
import {
  createHaPassthroughKind,
  haPassthroughConfigSchema,
} from '../../server/src/weather/sources/ha/passthrough';
import { HaPeer, PEER_TOKEN, waitFor, type PeerStateInput } from '../helpers/ha-peer';

/**
 * Home Assistant moisture entities as soil probe channels of an
 * `ha_passthrough` source (`soil_entities`): published as
 * `soil_moisture_pct:<channel>` extras, kept as history like a gateway's.
 */

class RecordingSink implements SourceSink {
  readonly batches: SourceBatch[] = [];
  publish(batch: SourceBatch): void {
    this.batches.push(batch);
  }
  contact(): void {}
  get extras(): ExtraReading[] {
    return this.batches.flatMap((b) => b.extras ?? []);
  }
}

const T0 = '2026-05-01T12:00:00.000000+00:00';
const STATES: PeerStateInput[] = [
  {
    entity_id: 'sensor.bed_moisture',
    state: '31.5',
    attributes: { unit_of_measurement: '%', device_class: 'moisture', friendly_name: 'Rose bed moisture' },
    last_updated: T0,
    last_changed: T0,
  },
  {
    entity_id: 'sensor.lawn_moisture',
    state: 'unavailable',
    attributes: { unit_of_measurement: '%', device_class: 'moisture' },
    last_updated: T0,
    last_changed: T0,
  },
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('validates soil channels: a soil-only source is valid, an empty one is not', () => {
  expect(haPassthroughConfigSchema.safeParse({ soil_entities: { bed: 'sensor.bed_moisture' } }).success).toBe(
    true,
  );
  expect(haPassthroughConfigSchema.safeParse({ soil_entities: { 'bad channel': 'sensor.x' } }).success).toBe(
    false,
  );
  expect(haPassthroughConfigSchema.safeParse({}).success).toBe(false);
});

it('publishes each moisture entity as its soil channel, live, and never a value HA does not have', async () => {
  const peer = await HaPeer.start({ states: STATES });
  cleanups.push(() => peer.close());
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
  const sink = new RecordingSink();
  const ctx: SourceContext = {
    id: 'ha_soil',
    config: { soil_entities: { bed: 'sensor.bed_moisture', lawn: 'sensor.lawn_moisture' } },
    clock: systemClock,
    logger: silentLogger(),
    location: { lat: 40.015, lon: -105.27, elevationM: 1655, timezone: 'America/Denver' },
    sink,
    fetch,
  };
  const source = createHaPassthroughKind(() => link).create(ctx);
  cleanups.push(() => source.stop());
  await source.start();

  expect(sink.extras).toEqual([
    {
      key: 'soil_moisture_pct:bed',
      value: 31.5,
      observedEpoch: Date.parse(T0) / 1000,
      label: 'Rose bed moisture',
    },
  ]);
  peer.emitStateChange('sensor.lawn_moisture', { state: '44' });
  await waitFor(() => sink.extras.some((x) => x.key === 'soil_moisture_pct:lawn'), 'the lawn channel');
  expect(sink.extras.find((x) => x.key === 'soil_moisture_pct:lawn')?.value).toBe(44);
});
