import request from 'supertest';
import { ManualClock } from '../../server/src/core/clock';
import {
  Geocoder,
  GEOCODE_CACHE_SIZE,
  GEOCODE_CACHE_TTL_MS,
  GEOCODE_QUEUE_LIMIT,
  normaliseQuery,
} from '../../server/src/wizard/geocoder';
import { WizardError } from '../../server/src/wizard/wizard-error';
import { json, LoopbackPeer, type PeerHandler } from '../helpers/loopback-peer';
import { serviceTracker } from '../helpers/service';

/**
 * The geocoder's cache (24 h, 100 queries) and its 1 request per second
 * throttle (Nominatim usage policy), against a loopback Nominatim with a fake
 * clock: the throttle's waits advance the clock instead of sleeping.
 */

const START_MS = Date.UTC(2025, 5, 1, 12);
const USER_AGENT = 'raincheck/test (https://example.invalid/raincheck)';

const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

/** A Nominatim answering one candidate named after the query. */
async function nominatim(handler?: PeerHandler): Promise<LoopbackPeer> {
  const peer = await new LoopbackPeer(
    handler ??
      ((req) => json(200, [{ display_name: `Place: ${req.query.get('q')}`, lat: '40.7', lon: '-74.0' }])),
  ).start();
  peers.push(peer);
  return peer;
}

/** A geocoder on the fake clock: throttle waits advance it; `startedAt` is the fake time of each upstream request. */
function geocoderFor(peer: LoopbackPeer, clock: ManualClock, sleep?: (ms: number) => Promise<void>) {
  const waits: number[] = [];
  const startedAt: number[] = [];
  const geocoder = new Geocoder({
    fetch: (input, init) => {
      startedAt.push(clock.nowMs());
      return fetch(input, init);
    },
    baseUrl: `${peer.baseUrl}/search`,
    userAgent: USER_AGENT,
    clock,
    sleep:
      sleep ??
      (async (ms) => {
        waits.push(ms);
        clock.advance(ms);
      }),
  });
  return { geocoder, waits, startedAt };
}

describe('Geocoder cache', () => {
  it('answers a repeated query, however it is spelled, from the cache for 24 h', async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    const { geocoder } = geocoderFor(peer, clock);
    const first = await geocoder.search('  12  Main St ');
    expect(first).toEqual([{ display_name: 'Place: 12 Main St', lat: '40.7', lon: '-74.0' }]);
    expect(peer.requests[0]?.headers['user-agent']).toBe(USER_AGENT);

    clock.advance(GEOCODE_CACHE_TTL_MS - 1);
    expect(await geocoder.search('12 main st')).toEqual(first);
    expect(await geocoder.search('１２ MAIN\tST')).toEqual(first);
    expect(peer.requests).toHaveLength(1);

    clock.advance(1);
    expect(await geocoder.search('12 Main St')).toEqual(first);
    expect(peer.requests).toHaveLength(2);
  });

  it('keeps the 100 most recently used queries', async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    const { geocoder } = geocoderFor(peer, clock);
    for (let i = 0; i < GEOCODE_CACHE_SIZE; i++) await geocoder.search(`street ${i}`);
    expect(peer.requests).toHaveLength(GEOCODE_CACHE_SIZE);
    // Using "street 0" makes "street 1" the least recently used, evicted by the 101st query.
    await geocoder.search('street 0');
    await geocoder.search('street 100');
    expect(peer.requests).toHaveLength(GEOCODE_CACHE_SIZE + 1);
    await geocoder.search('street 0');
    await geocoder.search('street 2');
    expect(peer.requests).toHaveLength(GEOCODE_CACHE_SIZE + 1);
    await geocoder.search('street 1');
    expect(peer.requests).toHaveLength(GEOCODE_CACHE_SIZE + 2);
    expect(peer.requests.at(-1)?.query.get('q')).toBe('street 1');
  });

  it('does not cache a failure', async () => {
    const clock = new ManualClock(START_MS);
    let up = false;
    const peer = await nominatim((req) =>
      up ? json(200, [{ display_name: req.query.get('q'), lat: '1', lon: '2' }]) : json(503, {}),
    );
    const { geocoder } = geocoderFor(peer, clock);
    await expect(geocoder.search('Elm St')).rejects.toMatchObject({ status: 502, code: 'geocode_failed' });
    up = true;
    expect(await geocoder.search('Elm St')).toEqual([{ display_name: 'Elm St', lat: '1', lon: '2' }]);
    expect(peer.requests).toHaveLength(2);
  });

  it('normalises queries for the cache key only', () => {
    expect(normaliseQuery('  Rue  de\tla Paix ')).toBe('rue de la paix');
    expect(normaliseQuery('ＡＢＣ')).toBe('abc');
  });
});

describe('Geocoder throttle', () => {
  it('starts upstream requests at least 1 s apart, waiting rather than refusing', async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    const { geocoder, waits, startedAt } = geocoderFor(peer, clock);
    const answers = await Promise.all([
      geocoder.search('a st'),
      geocoder.search('b st'),
      geocoder.search('c st'),
    ]);
    expect(answers.map((a) => a[0]?.display_name)).toEqual(['Place: a st', 'Place: b st', 'Place: c st']);
    expect(waits).toEqual([1000, 1000]);
    expect(startedAt).toEqual([START_MS, START_MS + 1000, START_MS + 2000]);

    // A request after a quiet spell goes straight out; one from the cache never waits.
    clock.advance(5000);
    await geocoder.search('d st');
    await geocoder.search('a st');
    expect(waits).toEqual([1000, 1000]);
    expect(startedAt).toHaveLength(4);
  });

  it('waits only the rest of the second', async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    const { geocoder, waits } = geocoderFor(peer, clock);
    await geocoder.search('a st');
    clock.advance(400);
    await geocoder.search('b st');
    expect(waits).toEqual([600]);
  });

  it('shares one upstream request between identical queries in flight', async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    const { geocoder } = geocoderFor(peer, clock);
    const [a, b] = await Promise.all([geocoder.search('Oak Ave'), geocoder.search('oak  ave')]);
    expect(a).toEqual(b);
    expect(peer.requests).toHaveLength(1);
  });

  it(`refuses with 429 geocode_busy beyond ${GEOCODE_QUEUE_LIMIT} waiting requests`, async () => {
    const clock = new ManualClock(START_MS);
    const peer = await nominatim();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { geocoder } = geocoderFor(peer, clock, async (ms) => {
      await gate;
      clock.advance(ms);
    });
    await geocoder.search('first st'); // starts at once; the next ones wait for the clock
    const queued = Array.from({ length: GEOCODE_QUEUE_LIMIT }, (_, i) => geocoder.search(`queued ${i}`));
    const refused = geocoder.search('one too many');
    await expect(refused).rejects.toBeInstanceOf(WizardError);
    await expect(refused).rejects.toMatchObject({ status: 429, code: 'geocode_busy' });
    release();
    expect(await Promise.all(queued)).toHaveLength(GEOCODE_QUEUE_LIMIT);
    expect(peer.requests).toHaveLength(GEOCODE_QUEUE_LIMIT + 1);
  });
});

describe('GET /wizard/geocode caching', () => {
  const services = serviceTracker();

  it('asks the geocoder once for the same address', async () => {
    const peer = await nominatim();
    const booted = await services.boot({ env: { RAINCHECK_GEOCODER_URL: `${peer.baseUrl}/search` } });
    const first = await request(booted.service.server)
      .get('/api/v1/wizard/geocode')
      .query({ q: '12 Main St' });
    const again = await request(booted.service.server)
      .get('/api/v1/wizard/geocode')
      .query({ q: '12  MAIN st' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body).toEqual([{ display_name: 'Place: 12 Main St', lat: '40.7', lon: '-74.0' }]);
    expect(peer.requests).toHaveLength(1);
  });
});
