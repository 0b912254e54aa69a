import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoopbackPeer, refusedBaseUrl, type PeerReply } from '../helpers/loopback-peer';

/**
 * addon/run.sh for real, with sh, jq and curl: a temp options file stands in
 * for /data/options.json, a loopback server for the Supervisor's services API
 * and RAINCHECK_EXEC for the service. The stand-in service writes the
 * environment it was started with to a file rather than printing it, so
 * stdout and stderr hold only what run.sh itself said.
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
let reply: PeerReply;

beforeAll(async () => {
  peer = await new LoopbackPeer(() => reply).start();
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-run-sh-'));
  peer.requests.length = 0;
  reply = { status: 500, body: '{"result":"error","message":"unexpected"}' };
});

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
      RAINCHECK_DATA_DIR: '/data',
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
    expect(run.env).toMatchObject({ LOG_LEVEL: 'info', PORT: '8099', RAINCHECK_DATA_DIR: '/data' });
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
    expect(peer.requests).toHaveLength(0);
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
    expect(peer.requests).toHaveLength(1);
    expect(peer.requests[0]).toMatchObject({ method: 'GET', path: '/services/mqtt' });
    expect(peer.requests[0]?.headers.authorization).toBe(`Bearer ${SUPERVISOR_TOKEN}`);
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
      const lines = stderrLines(run);
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
      `raincheck: MQTT: the Supervisor at ${closed} did not answer; starting without MQTT`,
    ]);
  });
});
