import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_TYPE } from '../../server/src/lan/service-records';
import { LoopbackPeer, refusedBaseUrl, type PeerReply } from '../helpers/loopback-peer';
import { mdnsAnswer, txtPairs } from '../helpers/mdns-query';
import { freePort } from '../helpers/process';
import { freeUdpPort } from '../helpers/udp-port';

/**
 * addon/run.sh for real, with sh, jq and curl: a temp options file stands in
 * for /data/options.json, a loopback server for the Supervisor's services API
 * and RAINCHECK_EXEC for the service. The stand-in service writes the
 * environment it was started with to a file rather than printing it, so
 * stdout and stderr hold only what run.sh itself said. The host-network
 * test starts the real service through run.sh instead and asks it for its
 * mDNS record on loopback.
 */

const RUN_SH = path.join(__dirname, '..', '..', 'addon', 'run.sh');
const SUPERVISOR_TOKEN = 'supervisor-token-7f3a';
const SUPERVISOR_PASSWORD = 'pw-from-supervisor-9c1e';
const USER_PASSWORD = 'pw-from-options-4b2d';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The service's environment; null when run.sh never started it. */
  env: Record<string, string> | null;
}

let dir: string;
let peer: LoopbackPeer;
/** The Supervisor's answer to GET /services/mqtt. */
let reply: PeerReply;
/** The Supervisor's answer to GET /addons/self/info. */
let selfInfo: PeerReply;

const INGRESS_PORT = 62011;

/** GET /addons/self/info as the Supervisor answers it for a host-network add-on with ingress_port: 0. */
function addonInfo(ingressPort: number): PeerReply {
  return {
    status: 200,
    body: JSON.stringify({
      result: 'ok',
      data: {
        name: 'Raincheck',
        slug: 'raincheck',
        ingress: true,
        ingress_entry: '/api/hassio_ingress/Xy7',
        ingress_url: '/api/hassio_ingress/Xy7/',
        ingress_port: ingressPort,
        ingress_panel: true,
        host_network: true,
        ip_address: '172.30.32.1',
      },
    }),
  };
}

beforeAll(async () => {
  peer = await new LoopbackPeer((req) => (req.path === '/addons/self/info' ? selfInfo : reply)).start();
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-run-sh-'));
  peer.requests.length = 0;
  reply = { status: 500, body: '{"result":"error","message":"unexpected"}' };
  selfInfo = addonInfo(INGRESS_PORT);
});

/** The requests run.sh made to the Supervisor for the MQTT service. */
const mqttRequests = () => peer.requests.filter((r) => r.path === '/services/mqtt');

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs run.sh with the given options (null: no options file) and environment. */
async function runScript(options: object | string | null, env: Record<string, string> = {}): Promise<Run> {
  const optionsFile = path.join(dir, 'options.json');
  if (options !== null) {
    fs.writeFileSync(optionsFile, typeof options === 'string' ? options : JSON.stringify(options));
  }
  const envFile = path.join(dir, 'service-env.json');
  const service = path.join(dir, 'service.sh');
  fs.writeFileSync(
    service,
    `#!/bin/sh\nexec "${process.execPath}" -e 'require("fs").writeFileSync(process.env.TEST_ENV_FILE, JSON.stringify(process.env))'\n`,
    { mode: 0o755 },
  );
  const child = spawn('sh', [RUN_SH], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TEST_ENV_FILE: envFile,
      RAINCHECK_OPTIONS_FILE: optionsFile,
      SUPERVISOR_API: peer.baseUrl,
      RAINCHECK_EXEC: service,
      RAINCHECK_ADDON_DATA: path.join(dir, 'data'),
      RAINCHECK_PORT_FILE: path.join(dir, 'run', 'port'),
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const started = fs.existsSync(envFile);
  const serviceEnv = started
    ? (JSON.parse(fs.readFileSync(envFile, 'utf8')) as Record<string, string>)
    : null;
  return { code, stdout, stderr, env: serviceEnv };
}

function mqttVars(env: Record<string, string> | null): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).filter(([k]) => k.startsWith('MQTT_')));
}

const stderrLines = (run: Run): string[] => run.stderr.split('\n').filter((l) => l !== '');
/** What run.sh said about MQTT (the ingress port has its own line). */
const mqttLines = (run: Run): string[] => stderrLines(run).filter((l) => l.includes('MQTT'));

const supervisorOk = (data: Record<string, unknown>): PeerReply => ({
  status: 200,
  body: JSON.stringify({ result: 'ok', data }),
});

const MOSQUITTO = {
  host: 'core-mosquitto',
  port: 1883,
  ssl: false,
  protocol: '3.1.1',
  username: 'addons',
  password: SUPERVISOR_PASSWORD,
  addon: 'core_mosquitto',
};

describe('addon/run.sh: options', () => {
  it('maps the options onto the service environment and starts the service', async () => {
    const run = await runScript({ log_level: 'debug', latitude: -33.86, longitude: 151.21, dry_run: true });
    expect(run.code).toBe(0);
    expect(run.env).toMatchObject({
      RAINCHECK_DATA_DIR: path.join(dir, 'data'),
      PORT: '8099',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'debug',
      LAT: '-33.86',
      LON: '151.21',
      DRY_RUN: '1',
    });
  });

  it('uses the defaults when options.json is missing', async () => {
    const run = await runScript(null);
    expect(run.code).toBe(0);
    expect(run.env).toMatchObject({
      LOG_LEVEL: 'info',
      PORT: '8099',
      RAINCHECK_DATA_DIR: path.join(dir, 'data'),
    });
    expect(run.env).not.toHaveProperty('DRY_RUN');
    expect(run.env).not.toHaveProperty('LAT');
    expect(run.stderr).toMatch(/not found; starting with the default options/);
  });

  it('leaves dry run off when the option is false', async () => {
    const run = await runScript({ log_level: 'info', dry_run: false }, { DRY_RUN: '1' });
    expect(run.env).not.toHaveProperty('DRY_RUN');
  });

  it('ignores a coordinate out of range, or one without the other, with one line', async () => {
    for (const options of [
      { latitude: 91, longitude: 10 },
      { latitude: 10, longitude: -180.5 },
      { latitude: 45.5 },
    ]) {
      const run = await runScript({ log_level: 'info', dry_run: false, ...options });
      expect(run.code).toBe(0);
      expect(run.env).not.toHaveProperty('LAT');
      expect(run.env).not.toHaveProperty('LON');
      expect(stderrLines(run).filter((l) => /location fallback ignored/.test(l))).toHaveLength(1);
    }
  });

  it('refuses to start on an options file that is not a JSON object', async () => {
    const run = await runScript('{"log_level": ');
    expect(run.code).toBe(1);
    expect(run.env).toBeNull();
    expect(run.stderr).toMatch(/not a JSON object; not starting/);
  });
});

describe('addon/run.sh: MQTT', () => {
  it('prefers the broker from the options and does not ask the Supervisor', async () => {
    reply = supervisorOk(MOSQUITTO);
    const run = await runScript(
      {
        log_level: 'info',
        dry_run: false,
        mqtt_host: 'broker.lan',
        mqtt_port: 1884,
        mqtt_username: 'raincheck',
        mqtt_password: USER_PASSWORD,
        mqtt_discovery_prefix: 'ha',
      },
      { SUPERVISOR_TOKEN },
    );
    expect(run.code).toBe(0);
    expect(mqttVars(run.env)).toEqual({
      MQTT_HOST: 'broker.lan',
      MQTT_PORT: '1884',
      MQTT_USERNAME: 'raincheck',
      MQTT_PASSWORD: USER_PASSWORD,
      MQTT_DISCOVERY_PREFIX: 'ha',
    });
    expect(mqttRequests()).toHaveLength(0);
    expect(run.stderr).toMatch(/broker from the add-on options, broker\.lan:1884/);
    expect(run.stdout + run.stderr).not.toContain(USER_PASSWORD);
  });

  it('defaults the port of an options broker to 1883, or 8883 with TLS', async () => {
    const plain = await runScript({ mqtt_host: 'broker.lan', mqtt_discovery_prefix: 'homeassistant' });
    expect(mqttVars(plain.env)).toEqual({
      MQTT_HOST: 'broker.lan',
      MQTT_PORT: '1883',
      MQTT_DISCOVERY_PREFIX: 'homeassistant',
    });
    const tls = await runScript({ mqtt_host: 'broker.lan', mqtt_tls: true });
    expect(mqttVars(tls.env)).toEqual({
      MQTT_HOST: 'broker.lan',
      MQTT_PORT: '8883',
      MQTT_TLS: '1',
      MQTT_DISCOVERY_PREFIX: 'homeassistant',
    });
  });

  it('uses the broker the Supervisor provides otherwise', async () => {
    reply = supervisorOk({ ...MOSQUITTO, ssl: true, port: 8883 });
    const run = await runScript(
      { log_level: 'info', dry_run: false, mqtt_discovery_prefix: 'homeassistant' },
      { SUPERVISOR_TOKEN },
    );
    expect(run.code).toBe(0);
    expect(mqttVars(run.env)).toEqual({
      MQTT_HOST: 'core-mosquitto',
      MQTT_PORT: '8883',
      MQTT_USERNAME: 'addons',
      MQTT_PASSWORD: SUPERVISOR_PASSWORD,
      MQTT_TLS: '1',
      MQTT_DISCOVERY_PREFIX: 'homeassistant',
    });
    expect(mqttRequests()).toHaveLength(1);
    expect(mqttRequests()[0]).toMatchObject({ method: 'GET', path: '/services/mqtt' });
    expect(mqttRequests()[0]?.headers.authorization).toBe(`Bearer ${SUPERVISOR_TOKEN}`);
    expect(run.stderr).toMatch(/broker from the Supervisor, core-mosquitto:8883 \(TLS\)/);
    expect(run.stdout + run.stderr).not.toContain(SUPERVISOR_PASSWORD);
    expect(run.stdout + run.stderr).not.toContain(SUPERVISOR_TOKEN);
  });

  it('sets no TLS for a plain Supervisor broker and ignores half an options override', async () => {
    reply = supervisorOk(MOSQUITTO);
    const run = await runScript(
      { mqtt_username: 'someone', mqtt_password: USER_PASSWORD, mqtt_discovery_prefix: 'homeassistant' },
      { SUPERVISOR_TOKEN },
    );
    expect(mqttVars(run.env)).toEqual({
      MQTT_HOST: 'core-mosquitto',
      MQTT_PORT: '1883',
      MQTT_USERNAME: 'addons',
      MQTT_PASSWORD: SUPERVISOR_PASSWORD,
      MQTT_DISCOVERY_PREFIX: 'homeassistant',
    });
    expect(run.stderr).toMatch(/apply only with mqtt_host; ignoring them/);
    expect(run.stdout + run.stderr).not.toContain(USER_PASSWORD);
  });

  const withoutMqtt: Array<[string, PeerReply, Record<string, string>, RegExp]> = [
    [
      '403 (the add-on lacks services: mqtt:want)',
      { status: 403, body: '{"result":"error","message":"No access to mqtt service!"}' },
      { SUPERVISOR_TOKEN },
      /HTTP 403: No access to mqtt service!.*services: mqtt:want; starting without MQTT/,
    ],
    [
      '400 (no MQTT add-on provides the service)',
      { status: 400, body: '{"result":"error","message":"Service not enabled"}' },
      { SUPERVISOR_TOKEN },
      /HTTP 400: Service not enabled.*Mosquitto broker add-on or set mqtt_host; starting without MQTT/,
    ],
    [
      'a 200 without a broker',
      { status: 200, body: '{"result":"ok","data":{}}' },
      { SUPERVISOR_TOKEN },
      /names no broker; starting without MQTT/,
    ],
    [
      'no SUPERVISOR_TOKEN',
      supervisorOk(MOSQUITTO),
      {},
      /SUPERVISOR_TOKEN is not set.*starting without MQTT/,
    ],
  ];

  it.each(withoutMqtt)(
    'starts without MQTT on %s, saying so in one line',
    async (_case, answer, env, line) => {
      reply = answer;
      const run = await runScript(
        { log_level: 'info', dry_run: false, mqtt_discovery_prefix: 'homeassistant' },
        { ...env, MQTT_HOST: 'stale-from-the-environment' },
      );
      expect(run.code).toBe(0);
      expect(run.env).not.toBeNull();
      expect(mqttVars(run.env)).toEqual({});
      const lines = mqttLines(run);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(run.stdout + run.stderr).not.toContain(SUPERVISOR_PASSWORD);
      expect(run.stdout + run.stderr).not.toContain(SUPERVISOR_TOKEN);
      if (!env.SUPERVISOR_TOKEN) expect(peer.requests).toHaveLength(0);
    },
  );

  it('starts without MQTT when the Supervisor does not answer', async () => {
    const closed = await refusedBaseUrl();
    const run = await runScript(
      { mqtt_discovery_prefix: 'homeassistant' },
      { SUPERVISOR_TOKEN, SUPERVISOR_API: closed },
    );
    expect(run.code).toBe(0);
    expect(mqttVars(run.env)).toEqual({});
    expect(stderrLines(run)).toEqual([
      `raincheck: ingress port: the Supervisor did not name one (HTTP 000); listening on 8099`,
      `raincheck: MQTT: the Supervisor at ${closed} did not answer; starting without MQTT`,
    ]);
  });
});

describe('addon/run.sh: the host network and its ingress port', () => {
  it('listens on the port the Supervisor picked (ingress_port: 0) on every interface, and writes it for the HEALTHCHECK', async () => {
    const run = await runScript({ log_level: 'info', dry_run: false }, { SUPERVISOR_TOKEN });
    expect(run.code).toBe(0);
    expect(run.env).toMatchObject({ PORT: String(INGRESS_PORT), HOST: '0.0.0.0' });
    const asked = peer.requests.filter((r) => r.path === '/addons/self/info');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.headers.authorization).toBe(`Bearer ${SUPERVISOR_TOKEN}`);
    expect(fs.readFileSync(path.join(dir, 'run', 'port'), 'utf8')).toBe(`${INGRESS_PORT}\n`);
    expect(stderrLines(run)).toContain(`raincheck: ingress port ${INGRESS_PORT} (chosen by the Supervisor)`);
    expect(run.stdout + run.stderr).not.toContain(SUPERVISOR_TOKEN);
  });

  it.each([
    ['a 403', { status: 403, body: '{"result":"error","message":"forbidden"}' }, /HTTP 403/],
    ['an answer without a port', addonInfo(0), /HTTP 200/],
  ])('falls back to 8099 on %s, saying so in one line', async (_case, answer, line) => {
    selfInfo = answer;
    const run = await runScript({ log_level: 'info' }, { SUPERVISOR_TOKEN });
    expect(run.code).toBe(0);
    expect(run.env?.PORT).toBe('8099');
    const lines = stderrLines(run).filter((l) => l.includes('ingress port'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(fs.readFileSync(path.join(dir, 'run', 'port'), 'utf8')).toBe('8099\n');
  });

  it('starts the real service on that port, and it announces itself over mDNS with its uuid and port', async () => {
    const ingressPort = await freePort();
    selfInfo = addonInfo(ingressPort);
    const mdnsPort = await freeUdpPort();
    fs.writeFileSync(path.join(dir, 'options.json'), JSON.stringify({ log_level: 'warn', dry_run: true }));
    const child = spawn('sh', [RUN_SH], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SUPERVISOR_TOKEN,
        SUPERVISOR_API: peer.baseUrl,
        RAINCHECK_OPTIONS_FILE: path.join(dir, 'options.json'),
        RAINCHECK_EXEC: path.join(__dirname, '..', '..', 'bin', 'raincheck'),
        RAINCHECK_ADDON_DATA: path.join(dir, 'data'),
        RAINCHECK_PORT_FILE: path.join(dir, 'run', 'port'),
        // The record on loopback: a test never talks to the machine's LAN.
        RAINCHECK_MDNS_ADDRESS: '127.0.0.1',
        RAINCHECK_MDNS_PORT: String(mdnsPort),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    try {
      const info = await waitForJson<{ uuid: string; api_version: string; api_prefix: string }>(
        `http://127.0.0.1:${ingressPort}/api/v1/info`,
      );
      const record = await mdnsAnswer(mdnsPort, [{ name: SERVICE_TYPE, type: 'PTR' }]);
      const all = [...record.answers, ...record.additionals];
      expect(all.find((r) => r.type === 'SRV')).toMatchObject({ data: { port: ingressPort } });
      expect(txtPairs(all.find((r) => r.type === 'TXT'))).toMatchObject({
        uuid: info.uuid,
        api_version: info.api_version,
        base_path: info.api_prefix,
      });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

async function waitForJson<T>(url: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return (await res.json()) as T;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
