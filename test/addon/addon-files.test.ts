import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'yaml';

/**
 * Lints the Home Assistant add-on files against the add-on ("app")
 * configuration documented on developers.home-assistant.io: the keys the
 * Supervisor knows, the options schema grammar, translations, the image and
 * the pictures. The Supervisor reads config.yaml, Dockerfile, apparmor.txt,
 * icon.png, logo.png and translations/ from the add-on folder, which is the
 * repository root.
 */

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

type Config = Record<string, unknown>;
const config = parse(read('config.yaml')) as Config;
const translations = parse(read('translations/en.yaml')) as {
  configuration?: Record<string, { name?: unknown; description?: unknown }>;
};
const options = (config.options ?? {}) as Record<string, unknown>;
const schema = (config.schema ?? {}) as Record<string, unknown>;

/** Every key of the documented add-on configuration (required and optional), less the deprecated ones. */
const DOCUMENTED_KEYS = new Set([
  // required
  'name',
  'version',
  'slug',
  'description',
  'arch',
  // optional
  'machine',
  'url',
  'startup',
  'webui',
  'boot',
  'ports',
  'ports_description',
  'host_network',
  'host_ipc',
  'host_dbus',
  'host_pid',
  'host_uts',
  'devices',
  'homeassistant',
  'hassio_role',
  'hassio_api',
  'homeassistant_api',
  'docker_api',
  'privileged',
  'full_access',
  'apparmor',
  'map',
  'environment',
  'audio',
  'video',
  'gpio',
  'usb',
  'uart',
  'udev',
  'devicetree',
  'kernel_modules',
  'stdin',
  'legacy',
  'options',
  'schema',
  'image',
  'timeout',
  'tmpfs',
  'discovery',
  'services',
  'auth_api',
  'ingress',
  'ingress_port',
  'ingress_entry',
  'ingress_stream',
  'panel_icon',
  'panel_title',
  'panel_admin',
  'backup',
  'backup_pre',
  'backup_post',
  'backup_exclude',
  'advanced',
  'stage',
  'init',
  'watchdog',
  'realtime',
  'journald',
  'breaking_versions',
  'ulimits',
]);
const REQUIRED_KEYS = ['name', 'version', 'slug', 'description', 'arch'];
const DOCUMENTED_ARCH = ['armhf', 'armv7', 'aarch64', 'amd64', 'i386'];
const STARTUP = ['initialize', 'system', 'services', 'application', 'once'];

/**
 * The documented schema types. Bounds are unsigned, as every Supervisor
 * before 2026 accepts them (negative bounds came with supervisor#6673 and make
 * older ones reject the whole config).
 */
const SCHEMA_TYPE =
  /^(?:bool|email|url|port|device(?:\((?<filter>subsystem=[a-z]+)\))?|str(?:\((?<sMin>\d+)?,(?<sMax>\d+)?\))?|password(?:\((?<pMin>\d+)?,(?<pMax>\d+)?\))?|int(?:\((?<iMin>\d+)?,(?<iMax>\d+)?\))?|float(?:\((?<fMin>[\d.]+)?,(?<fMax>[\d.]+)?\))?|match\((?<match>.*)\)|list\((?<list>.+)\))(?<optional>\?)?$/;

/** Whether a value satisfies a schema type, as the Supervisor validates options. */
function satisfies(type: string, value: unknown): boolean {
  const m = SCHEMA_TYPE.exec(type);
  if (!m?.groups) return false;
  const g = m.groups;
  const within = (n: number, min?: string, max?: string): boolean =>
    (min === undefined || n >= Number(min)) && (max === undefined || n <= Number(max));
  const base = type.replace(/\?$/, '').replace(/\(.*$/, '');
  switch (base) {
    case 'bool':
      return typeof value === 'boolean';
    case 'str':
      return typeof value === 'string' && within(value.length, g.sMin, g.sMax);
    case 'password':
      return typeof value === 'string' && within(value.length, g.pMin, g.pMax);
    case 'int':
      return Number.isInteger(value) && within(value as number, g.iMin, g.iMax);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) && within(value, g.fMin, g.fMax);
    case 'email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value);
    case 'url':
      return typeof value === 'string' && URL.canParse(value) && /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
    case 'port':
      return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
    case 'match':
      return typeof value === 'string' && new RegExp(g.match as string).test(value);
    case 'list':
      return typeof value === 'string' && (g.list as string).split('|').includes(value);
    case 'device':
      return typeof value === 'string' && value.startsWith('/dev/');
    default:
      return false;
  }
}

describe('config.yaml', () => {
  it('uses only documented add-on keys and has the required ones', () => {
    expect(Object.keys(config).filter((k) => !DOCUMENTED_KEYS.has(k))).toEqual([]);
    for (const key of REQUIRED_KEYS) expect(config).toHaveProperty(key);
  });

  it('has a string version, a URI-friendly slug and documented architectures', () => {
    expect(typeof config.version).toBe('string');
    expect(config.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(config.slug).toMatch(/^[a-z0-9_]+$/);
    expect(Array.isArray(config.arch)).toBe(true);
    const arch = config.arch as string[];
    expect(arch.length).toBeGreaterThan(0);
    for (const a of arch) expect(DOCUMENTED_ARCH).toContain(a);
    expect(STARTUP).toContain(config.startup ?? 'application');
    expect(() => new URL(config.url as string)).not.toThrow();
  });

  it('runs on the host network with an ingress port the Supervisor picks, which run.sh reads', () => {
    expect(config.host_network).toBe(true);
    expect(config.ingress).toBe(true);
    // 0: a port free on the host, read back from the Supervisor (a fixed one could collide).
    expect(config.ingress_port).toBe(0);
    const run = read('addon/run.sh');
    expect(run).toMatch(/supervisor_get \/addons\/self\/info/);
    expect(run).toMatch(/\.data\.ingress_port/);
    expect(run).toMatch(/^export HOST=0\.0\.0\.0$/m);
    expect(config.panel_icon).toMatch(/^mdi:[a-z0-9-]+$/);
    expect(typeof config.panel_title).toBe('string');
  });

  it('has no watchdog: the image HEALTHCHECK reads the port file run.sh writes', () => {
    expect(config).not.toHaveProperty('watchdog');
    const portFile = /^PORT_FILE="\$\{RAINCHECK_PORT_FILE:-([^}]+)\}"$/m.exec(read('addon/run.sh'))?.[1];
    expect(portFile).toBe('/run/raincheck/port');
    expect(read('Dockerfile')).toContain(`$(cat ${portFile} 2>/dev/null || echo 8099)/api/v1/health`);
  });

  it('wants the MQTT service and the Home Assistant API', () => {
    const services = config.services as string[];
    for (const s of services) expect(s).toMatch(/^(?:mqtt|mysql):(?:provide|want|need)$/);
    expect(services).toContain('mqtt:want');
    expect(config.homeassistant_api).toBe(true);
  });

  it('keeps caches and half-written files out of backups', () => {
    expect(config.backup_exclude).toEqual(expect.arrayContaining(['forecast-cache.json', '*.tmp-*']));
  });

  it('has a schema entry for every option and an option for every required schema key', () => {
    for (const key of Object.keys(options)) expect(schema).toHaveProperty(key);
    for (const [key, type] of Object.entries(schema)) {
      expect(typeof type).toBe('string');
      if (!(type as string).endsWith('?')) expect(options).toHaveProperty(key);
    }
  });

  it('gives optional schema keys no default (a default would make them required)', () => {
    for (const [key, type] of Object.entries(schema)) {
      if ((type as string).endsWith('?')) expect(options).not.toHaveProperty(key);
    }
  });

  it('writes every schema type in the documented grammar', () => {
    for (const [key, type] of Object.entries(schema)) {
      expect({ key, valid: SCHEMA_TYPE.test(type as string) }).toEqual({ key, valid: true });
    }
  });

  it('has defaults that satisfy their schema types', () => {
    for (const [key, value] of Object.entries(options)) {
      expect({ key, value, ok: satisfies(schema[key] as string, value) }).toEqual({ key, value, ok: true });
    }
  });

  it('declares the options run.sh reads', () => {
    const used = new Set(
      [...read('addon/run.sh').matchAll(/\$\((?:option|coordinate) (\w+)/g)].map((m) => m[1]),
    );
    expect([...used].sort()).toEqual(Object.keys(schema).sort());
  });

  it('offers exactly the log levels the service accepts', () => {
    const levels = /^list\((.+)\)$/.exec(schema.log_level as string)?.[1]?.split('|');
    expect(levels).toEqual(expect.arrayContaining(['info', 'debug', 'warn', 'error']));
    const service = read('server/src/config/env.ts');
    for (const level of levels ?? []) expect(service).toContain(`'${level}'`);
  });
});

describe('schema grammar', () => {
  it.each([
    ['str', 'x', true],
    ['str(2,)', 'x', false],
    ['int(5,20)', 15, true],
    ['int(5,20)', 21, false],
    ['float', -33.8, true],
    ['float(0,1.5)', 1.2, true],
    ['port', 1883, true],
    ['port', 0, false],
    ['bool', false, true],
    ['password', 'secret', true],
    ['email', 'a@b.org', true],
    ['url', 'http://example.com/', true],
    ['match(^\\w*$)', 'abc', true],
    ['match(^[^#+\\s]+$)', 'home/#', false],
    ['list(a|b)', 'b', true],
    ['list(a|b)', 'c', false],
    ['device(subsystem=tty)', '/dev/ttyUSB0', true],
  ])('%s accepts %p: %p', (type, value, ok) => {
    expect(satisfies(type, value)).toBe(ok);
  });

  it.each(['string', 'float(-90,90)', 'int(1;2)', 'list()', 'bool??', ''])('rejects %p', (type) => {
    expect(SCHEMA_TYPE.test(type)).toBe(false);
  });
});

describe('translations/en.yaml', () => {
  it('names and describes every option, and nothing else', () => {
    const entries = translations.configuration ?? {};
    expect(Object.keys(entries).sort()).toEqual(Object.keys(schema).sort());
    for (const [key, entry] of Object.entries(entries)) {
      expect({ key, name: typeof entry.name }).toEqual({ key, name: 'string' });
      expect({ key, description: typeof entry.description }).toEqual({ key, description: 'string' });
      expect((entry.name as string).trim()).not.toBe('');
      expect((entry.description as string).trim()).not.toBe('');
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds from BUILD_FROM with a pinned default and no build.yaml', () => {
    expect(dockerfile).toMatch(/^ARG BUILD_FROM=ghcr\.io\/home-assistant\/[a-z0-9-]*base:\d+\.\d+$/m);
    expect(dockerfile).toMatch(/^FROM \$\{BUILD_FROM\}$/m);
    for (const file of ['build.yaml', 'build.yml', 'build.json']) {
      expect(fs.existsSync(path.join(ROOT, file))).toBe(false);
    }
  });

  it('labels the image and keeps the default version in step with config.yaml', () => {
    expect(dockerfile).toMatch(/io\.hass\.type="addon"/);
    expect(dockerfile).toMatch(/io\.hass\.version="\$\{BUILD_VERSION\}"/);
    expect(dockerfile).toMatch(/io\.hass\.arch="\$\{BUILD_ARCH\}"/);
    expect(/^ARG BUILD_VERSION=(\S+)$/m.exec(dockerfile)?.[1]).toBe(config.version);
  });

  it('checks health on the service port and starts run.sh', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD curl .*http:\/\/127\.0\.0\.1:\$\(cat /m);
    expect(dockerfile).toMatch(/^COPY addon\/run\.sh \/run\.sh$/m);
    expect(dockerfile).toMatch(/^CMD \["\/run\.sh"\]$/m);
  });

  it('builds the web app in the build stage and ships dist/ with it', () => {
    const build = dockerfile.slice(
      dockerfile.indexOf('AS build'),
      dockerfile.lastIndexOf('FROM ${BUILD_FROM}'),
    );
    expect(build).toMatch(/^COPY web \.\/web$/m);
    expect(build).toMatch(/^RUN npm run build && test -f dist\/web\/index\.html$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/build\/dist \.\/dist$/m);
    // The web app's build script is what the image runs: it must produce dist/web.
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toContain('build:web');
    expect(scripts['build:web']).toContain('vite build');
  });

  it('builds the server with the slimming step the build script runs, which the build stage copies', () => {
    const build = dockerfile.slice(
      dockerfile.indexOf('AS build'),
      dockerfile.lastIndexOf('FROM ${BUILD_FROM}'),
    );
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toContain('build:server');
    const step = /node (scripts\/\S+\.mjs)/.exec(scripts['build:server'] ?? '')?.[1];
    expect(step).toBeDefined();
    expect(fs.existsSync(path.join(ROOT, step!))).toBe(true);
    expect(build).toContain(`COPY ${step} ./scripts/`);
    expect(build.indexOf(`COPY ${step}`)).toBeLessThan(build.indexOf('RUN npm run build'));
  });

  it('clears the base image s6 entrypoint when config.yaml turns the init off', () => {
    expect(config.init).toBe(false);
    expect(dockerfile).toMatch(/^ENTRYPOINT \[\]$/m);
  });
});

describe('apparmor.txt', () => {
  it('is enabled (the default, so config.yaml leaves the key out) and names its profile after the slug', () => {
    expect(config).not.toHaveProperty('apparmor');
    const profile = read('apparmor.txt');
    expect(profile).toMatch(/^#include <tunables\/global>$/m);
    const header = /^profile (\S+) flags=\(([^)]*)\) \{$/m.exec(profile);
    expect(header?.[1]).toBe(config.slug);
    expect(header?.[2]).toBe('attach_disconnected,mediate_deleted');
    expect(profile).toMatch(/^\s+\/data\/\*\* rwk,$/m);
    expect(profile).toMatch(/^\s+\/usr\/bin\/node rix,$/m);
    expect(profile).not.toMatch(/^\s+file,$/m);
  });
});

interface PngInfo {
  width: number;
  height: number;
  pixelsOk: boolean;
}

/** Reads a PNG's signature, IHDR and image data; pixelsOk when the IDAT stream inflates to the size IHDR promises. */
function readPng(file: string): PngInfo {
  const buf = fs.readFileSync(path.join(ROOT, file));
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(buf.toString('ascii', 12, 16)).toBe('IHDR');
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const bitDepth = buf[24];
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[buf[25] as number] ?? 0;
  const idat: Buffer[] = [];
  let at = 8;
  while (at < buf.length) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('ascii', at + 4, at + 8);
    if (type === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + length));
    at += 12 + length;
    if (type === 'IEND') break;
  }
  const rowBytes = Math.ceil((width * channels * (bitDepth ?? 8)) / 8);
  const pixels = zlib.inflateSync(Buffer.concat(idat));
  return { width, height, pixelsOk: channels > 0 && pixels.length === height * (1 + rowBytes) };
}

describe('icon.png and logo.png', () => {
  it('has a square 128x128 icon next to config.yaml', () => {
    expect(readPng('icon.png')).toEqual({ width: 128, height: 128, pixelsOk: true });
  });

  it('has a landscape logo of about 250x100 next to config.yaml', () => {
    const logo = readPng('logo.png');
    expect(logo.pixelsOk).toBe(true);
    expect(logo.width).toBeGreaterThan(logo.height);
    expect(logo.width).toBeLessThanOrEqual(500);
  });

  it('keeps no second copy where the Supervisor does not look', () => {
    for (const file of ['icon.png', 'logo.png', 'apparmor.txt', 'config.yaml']) {
      expect(fs.existsSync(path.join(ROOT, 'addon', file))).toBe(false);
    }
  });
});
