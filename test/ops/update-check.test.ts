import request from 'supertest';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import {
  CHECK_INTERVAL_S,
  FIRST_CHECK_DELAY_S,
  RETRY_FIRST_S,
  STATE_KEY,
  UpdateChecker,
  type UpdateSettings,
} from '../../server/src/ops/updates/update-checker';
import { compareVersions, parseVersion } from '../../server/src/ops/updates/version-order';
import { json, LoopbackPeer, type PeerReply } from '../helpers/loopback-peer';
import { loopbackOnlyFetch, serviceTracker } from '../helpers/service';

/**
 * The opt-in release check (GET /updates, spec 2.5 "Updates status"), against
 * a loopback releases feed that answers as the GitHub releases API does: off
 * by default (nothing fetched), a first check a minute after the start, a
 * daily check after that, back-off on failures, the answer kept across a
 * restart, and the manifest's `update` entity while the check is on.
 */

const T0_MS = Date.UTC(2026, 6, 15, 9, 0, 0);
const T0 = T0_MS / 1000;

/** A GitHub `releases/latest` answer. */
function release(tag: string, extra: Record<string, unknown> = {}): PeerReply {
  return json(200, {
    tag_name: tag,
    name: `Raincheck ${tag}`,
    html_url: `https://github.com/raincheck/raincheck/releases/tag/${tag}`,
    draft: false,
    prerelease: false,
    ...extra,
  });
}

class MemoryState {
  readonly values = new Map<string, unknown>();
  get(key: string): unknown {
    return this.values.get(key);
  }
  set(key: string, value: unknown): void {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

async function feed(reply: () => PeerReply): Promise<LoopbackPeer> {
  const peer = new LoopbackPeer(() => reply());
  await peer.start();
  peers.push(peer);
  return peer;
}

function checker(
  clock: ManualClock,
  settings: () => UpdateSettings | null,
  state = new MemoryState(),
  currentVersion = '1.4.0',
) {
  return new UpdateChecker({
    clock,
    logger: silentLogger(),
    fetch: loopbackOnlyFetch,
    settings,
    state,
    currentVersion,
  });
}

describe('release versions', () => {
  it('order by semantic-version precedence; a leading v and build metadata are ignored', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      'v1.0.0',
      '1.0.1',
      '1.2.0',
      '1.10.0+build.7',
      '2.0.0',
    ];
    const parsed = order.map((v) => parseVersion(v)!);
    for (let i = 1; i < parsed.length; i += 1)
      expect(compareVersions(parsed[i - 1]!, parsed[i]!)).toBeLessThan(0);
    expect(parseVersion('v1.10.0+build.7')?.text).toBe('1.10.0');
    expect(parseVersion('latest')).toBeNull();
    expect(parseVersion('1.2')).toBeNull();
  });
});

describe('UpdateChecker', () => {
  it('off by default: fetches nothing and reports no latest, however much time passes', async () => {
    const peer = await feed(() => release('v9.0.0'));
    const clock = new ManualClock(T0_MS);
    const off = checker(clock, () => ({ check_enabled: false, releases_url: `${peer.baseUrl}/latest` }));
    for (const days of [0, 1, 2]) {
      clock.set(T0_MS + days * 86_400_000);
      await off.tick();
    }
    expect(peer.requests).toHaveLength(0);
    expect(off.status()).toEqual({
      current: '1.4.0',
      latest: null,
      update_available: false,
      release_url: null,
      checked_at_epoch: null,
      check_enabled: false,
    });
  });

  it('checks a minute after the start, then once a day, and reports a newer release', async () => {
    let tag = 'v1.5.0';
    const peer = await feed(() => release(tag));
    const clock = new ManualClock(T0_MS);
    const on = checker(clock, () => ({ check_enabled: true, releases_url: `${peer.baseUrl}/latest` }));
    await on.tick();
    expect(peer.requests).toHaveLength(0);
    expect(on.status()).toMatchObject({ check_enabled: true, latest: null, checked_at_epoch: null });

    clock.set(T0_MS + FIRST_CHECK_DELAY_S * 1000);
    await on.tick();
    expect(peer.requests).toHaveLength(1);
    expect(peer.requests[0]!.headers['user-agent']).toBe('raincheck/1.4.0');
    expect(peer.requests[0]!.url).toBe('/latest');
    expect(on.status()).toEqual({
      current: '1.4.0',
      latest: '1.5.0',
      update_available: true,
      release_url: 'https://github.com/raincheck/raincheck/releases/tag/v1.5.0',
      checked_at_epoch: T0 + FIRST_CHECK_DELAY_S,
      check_enabled: true,
    });

    tag = 'v1.4.0';
    clock.advance((CHECK_INTERVAL_S - 1) * 1000);
    await on.tick();
    expect(peer.requests).toHaveLength(1);
    clock.advance(1000);
    await on.tick();
    expect(peer.requests).toHaveLength(2);
    // The newest release is the one running: no update.
    expect(on.status()).toMatchObject({ latest: '1.4.0', update_available: false });
  });

  it('backs off after failures (1 h, 2 h, 4 h ... at most a day) and resumes the daily check once one succeeds', async () => {
    let failing = true;
    const peer = await feed(() => (failing ? json(503, { message: 'busy' }) : release('v2.0.0')));
    const clock = new ManualClock(T0_MS);
    const on = checker(clock, () => ({ check_enabled: true, releases_url: `${peer.baseUrl}/latest` }));
    await on.tick(); // the start: first check a minute from now
    let t = FIRST_CHECK_DELAY_S;
    clock.set(T0_MS + t * 1000);
    await on.tick();
    const attempts = [t];
    for (const wait of [RETRY_FIRST_S, 2 * RETRY_FIRST_S, 4 * RETRY_FIRST_S]) {
      clock.set(T0_MS + (t + wait - 1) * 1000);
      await on.tick(); // not yet
      t += wait;
      clock.set(T0_MS + t * 1000);
      await on.tick();
      attempts.push(t);
    }
    expect(peer.requests).toHaveLength(attempts.length);
    expect(on.status()).toMatchObject({ latest: null, update_available: false, checked_at_epoch: null });

    failing = false;
    t += 8 * RETRY_FIRST_S;
    clock.set(T0_MS + t * 1000);
    await on.tick();
    expect(on.status()).toMatchObject({ latest: '2.0.0', update_available: true, checked_at_epoch: T0 + t });
    clock.set(T0_MS + (t + CHECK_INTERVAL_S - 1) * 1000);
    await on.tick();
    expect(peer.requests).toHaveLength(attempts.length + 1);
  });

  it('never waits longer than a day between failed attempts', async () => {
    const peer = await feed(() => json(500, {}));
    const clock = new ManualClock(T0_MS);
    const state = new MemoryState();
    const on = checker(clock, () => ({ check_enabled: true, releases_url: `${peer.baseUrl}/latest` }), state);
    await on.tick(); // the start
    let t = FIRST_CHECK_DELAY_S;
    const waits: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      clock.set(T0_MS + t * 1000);
      await on.tick();
      const next = (state.get(STATE_KEY) as { next_attempt_epoch: number }).next_attempt_epoch;
      waits.push(next - (T0 + t));
      t = next - T0;
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 24, 24, 24].map((hours) => hours * 3600));
    expect(peer.requests).toHaveLength(8);
  });

  it('keeps its answer across a restart and does not check again early', async () => {
    const peer = await feed(() => release('v1.6.0'));
    const clock = new ManualClock(T0_MS + FIRST_CHECK_DELAY_S * 1000);
    const state = new MemoryState();
    const settings = () => ({ check_enabled: true, releases_url: `${peer.baseUrl}/latest` });
    const first = checker(clock, settings, state);
    await first.tick(); // fresh state: first check a minute from now
    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    await first.tick();
    expect(peer.requests).toHaveLength(1);

    clock.advance(3_600_000);
    const restarted = checker(clock, settings, state);
    await restarted.tick();
    expect(peer.requests).toHaveLength(1);
    expect(restarted.status()).toMatchObject({ latest: '1.6.0', update_available: true });
  });

  it('reads the releases list too, skipping drafts and pre-releases, and refuses an answer with no version', async () => {
    let body: PeerReply = json(200, [
      { tag_name: 'v3.0.0', draft: true, html_url: 'https://example.org/draft' },
      { tag_name: 'v2.9.0-rc.1', prerelease: true, html_url: 'https://example.org/rc' },
      { tag_name: 'v2.8.0', html_url: 'https://example.org/2.8.0' },
    ]);
    const peer = await feed(() => body);
    const clock = new ManualClock(T0_MS);
    const on = checker(clock, () => ({ check_enabled: true, releases_url: `${peer.baseUrl}/releases` }));
    await on.tick(); // the start
    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    await on.tick();
    expect(on.status()).toMatchObject({ latest: '2.8.0', release_url: 'https://example.org/2.8.0' });

    body = json(200, { message: 'Not Found' });
    clock.advance(CHECK_INTERVAL_S * 1000);
    await on.tick();
    // The failed check keeps the last good answer and its time.
    expect(on.status()).toMatchObject({ latest: '2.8.0', checked_at_epoch: T0 + FIRST_CHECK_DELAY_S });
  });

  it('switched off, it reports nothing it found while on', async () => {
    const peer = await feed(() => release('v5.0.0'));
    const clock = new ManualClock(T0_MS);
    let enabled = true;
    const on = checker(clock, () => ({ check_enabled: enabled, releases_url: `${peer.baseUrl}/latest` }));
    await on.tick();
    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    await on.tick();
    expect(on.status().latest).toBe('5.0.0');
    enabled = false;
    expect(on.status()).toMatchObject({
      latest: null,
      update_available: false,
      release_url: null,
      check_enabled: false,
    });
  });
});

describe('UpdateChecker, a changed releases_url', () => {
  it("reports nothing of the old feed's answer and checks the new feed a minute later", async () => {
    const oldFeed = await feed(() => release('v3.0.0'));
    const newFeed = await feed(() => release('v1.4.1'));
    const clock = new ManualClock(T0_MS);
    let url = `${oldFeed.baseUrl}/latest`;
    const on = checker(clock, () => ({ check_enabled: true, releases_url: url }));
    await on.tick();
    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    await on.tick();
    expect(on.status()).toMatchObject({ latest: '3.0.0', update_available: true });

    url = `${newFeed.baseUrl}/latest`;
    expect(on.status()).toMatchObject({ latest: null, update_available: false, checked_at_epoch: null });
    await on.tick();
    expect(newFeed.requests).toHaveLength(0);
    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    await on.tick();
    expect(newFeed.requests).toHaveLength(1);
    expect(on.status()).toMatchObject({ latest: '1.4.1', update_available: true });
  });
});

describe('GET /updates and the manifest update entity, through the service', () => {
  const { boot } = serviceTracker();
  const base = (extra: string) => `schema_version = 2
[deployment]
display_name = "Update yard"
[deployment.location]
lat = 40.7
lon = -74.0
${extra}`;

  it('without an [updates] section: check_enabled false, latest null, no update entity, nothing fetched', async () => {
    const peer = await feed(() => release('v9.9.9'));
    const booted = await boot({ configToml: base('') });
    const res = await request(booted.service.server).get('/api/v1/updates').expect(200);
    expect(res.body).toMatchObject({
      latest: null,
      update_available: false,
      check_enabled: false,
      checked_at_epoch: null,
    });
    const manifest = await request(booted.service.server).get('/api/v1/sensors/manifest').expect(200);
    expect(manifest.body.entities.map((e: { key: string }) => e.key)).not.toContain('update');
    expect(peer.requests).toHaveLength(0);
  });

  it('enabled: the first check runs a minute after the start and GET /updates and the manifest say what it found', async () => {
    const peer = await feed(() => release('v99.0.0'));
    const clock = new ManualClock(T0_MS);
    const toml = base(`[updates]\ncheck_enabled = true\nreleases_url = "${peer.baseUrl}/latest"\n`);
    const booted = await boot({ configToml: toml, serviceOptions: { clock } });
    const before = await request(booted.service.server).get('/api/v1/updates').expect(200);
    expect(before.body).toMatchObject({ check_enabled: true, latest: null, checked_at_epoch: null });
    const early = await request(booted.service.server).get('/api/v1/sensors/manifest').expect(200);
    expect(early.body.entities.find((e: { key: string }) => e.key === 'update')).toMatchObject({
      platform: 'update',
      latest_version: null,
      state: null,
    });

    clock.advance(FIRST_CHECK_DELAY_S * 1000);
    // A config change runs what is due at once (the minute timer would too).
    await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('content-type', 'application/toml')
      .send(toml.replace('Update yard', 'Update yard 2'))
      .expect(200);
    let body = (await request(booted.service.server).get('/api/v1/updates')).body;
    for (let i = 0; i < 50 && body.checked_at_epoch === null; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      body = (await request(booted.service.server).get('/api/v1/updates')).body;
    }
    expect(peer.requests).toHaveLength(1);
    expect(body).toMatchObject({
      latest: '99.0.0',
      update_available: true,
      release_url: 'https://github.com/raincheck/raincheck/releases/tag/v99.0.0',
      checked_at_epoch: T0 + FIRST_CHECK_DELAY_S,
      check_enabled: true,
    });
    const manifest = await request(booted.service.server).get('/api/v1/sensors/manifest').expect(200);
    expect(manifest.body.entities.find((e: { key: string }) => e.key === 'update')).toEqual({
      key: 'update',
      platform: 'update',
      name: 'Update',
      device: { kind: 'service' },
      requires: 'updates:check_enabled',
      device_class: 'firmware',
      entity_category: 'diagnostic',
      installed_version: body.current,
      latest_version: '99.0.0',
      release_url: 'https://github.com/raincheck/raincheck/releases/tag/v99.0.0',
      commands: false,
      state: 'on',
    });
  });
});
