import request from 'supertest';
import { json, LoopbackPeer } from '../helpers/loopback-peer';
import { promtoolCheckMetrics } from '../helpers/promtool';
import { quietDemoClock, serviceTracker, type BootedService } from '../helpers/service';

/**
 * GET /metrics (spec 4.1): the aggregate counters the spec lists, in a text
 * exposition that Prometheus' own promtool accepts, on the first scrape and
 * after.
 */

const { boot } = serviceTracker();
const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

async function scrape(booted: BootedService): Promise<string> {
  const res = await request(booted.service.server).get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** The value of one sample line, by its exact name and labels. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/metrics', () => {
  it('passes promtool check metrics on the first scrape and the next', async () => {
    const booted = await boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
    const first = await scrape(booted);
    expect(first).not.toMatch(/\bNa[Nn]\b/);
    expect(first).not.toContain('9223372036');
    expect(promtoolCheckMetrics(first)).toEqual({ status: 0, output: '' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await scrape(booted);
    expect(promtoolCheckMetrics(second)).toEqual({ status: 0, output: '' });
    // Once the monitor has samples the delay statistics are there, as numbers.
    expect(sample(second, 'raincheck_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(second).not.toMatch(/^raincheck_nodejs_active_\w+_total/m);
  });

  it('counts the demo engine answers by verdict and the weather, forecast and engine refreshes', async () => {
    const booted = await boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
    await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    let text = '';
    await until(async () => {
      text = await scrape(booted);
      return ['weather', 'forecast', 'engine'].every(
        (s) => (sample(text, `raincheck_refreshes_total{subsystem="${s}"}`) ?? 0) > 0,
      );
    });
    const verdicts = text.split('\n').filter((l) => l.startsWith('raincheck_verdicts_total{'));
    const total = verdicts.reduce((sum, line) => sum + Number(line.split(' ')[1]), 0);
    expect(verdicts.length).toBeGreaterThan(0);
    expect(total).toBe(sample(text, 'raincheck_refreshes_total{subsystem="engine"}'));
    for (const line of verdicts) expect(line).toMatch(/verdict="(water|skip|paused|hold|none)"/);
  });

  it('counts controller errors by kind and code, and provider failures and latency by provider', async () => {
    const board = await new LoopbackPeer(() => json(500, { error: 'relay fault' })).start();
    const cloud = await new LoopbackPeer(() => json(503, { reason: 'maintenance' })).start();
    peers.push(board, cloud);
    const booted = await boot({
      configToml: `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0

[[sources]]
id = "om"
kind = "open_meteo"
priority = 50
[sources.config]
base_url = "${cloud.baseUrl}"

[[controllers]]
id = "board"
kind = "http_generic"
default = true
[controllers.config]
run = { url = "${board.baseUrl}/zones/{station}/on" }
stop = { url = "${board.baseUrl}/zones/{station}/off" }

[zones.front_lawn]
display_name = "Front lawn"
species = "tall_fescue"
controller_station = "1"
`,
    });
    await request(booted.service.server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'run', zone: 'front_lawn', seconds: 60 })
      .expect(502);
    let text = '';
    await until(async () => {
      text = await scrape(booted);
      return (
        sample(text, 'raincheck_cloud_errors_total{provider="open_meteo",code="http_503"}') !== undefined
      );
    });
    expect(
      sample(text, 'raincheck_controller_errors_total{kind="http_generic",code="controller_unreachable"}'),
    ).toBe(1);
    const latency = sample(
      text,
      'raincheck_last_fetch_latency_seconds{provider="open_meteo",use="forecast"}',
    );
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThan(10);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
  });
});
