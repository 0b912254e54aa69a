import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigService } from '../../server/src/config/config-service';
import type { AppliedConfig } from '../../server/src/config/config-types';
import { parseEnv } from '../../server/src/config/env';
import type { JsonObject } from '../../server/src/config/json-walk';
import { toToml } from '../../server/src/config/toml';
import { VALIDATED_CACHE_FILE } from '../../server/src/config/validated-cache';
import { computeBuildId, MIRROR_MANIFEST } from '../../server/src/core/build-id';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import {
  builtinSourceKinds,
  registerWithConfigValidator as registerSourceKinds,
} from '../../server/src/weather/sources/index';
import { T0_MS, tempDir, useBuiltinKinds, validDoc } from '../helpers/config-fixtures';

/**
 * The validated-config cache (config/validated-cache.ts): a boot on an
 * unchanged config.toml adopts what validating it gave, without validating;
 * anything else validates. Spying on validateDocument tells the two apart.
 */

jest.mock('../../server/src/config/validate', () => {
  const actual = jest.requireActual('../../server/src/config/validate');
  return { ...actual, validateDocument: jest.fn(actual.validateDocument) };
});
// eslint-disable-next-line @typescript-eslint/no-require-imports
const validate = require('../../server/src/config/validate') as { validateDocument: jest.Mock };

beforeAll(() => {
  useBuiltinKinds();
  registerSourceKinds(builtinSourceKinds());
});
beforeEach(() => validate.validateDocument.mockClear());
const dir = tempDir('raincheck-validated-cache-');

const BUILD = 'build-1';

async function boot(
  options: { buildId?: string | null; vars?: Record<string, string> } = {},
): Promise<{ service: ConfigService; applied: AppliedConfig | null; validated: boolean }> {
  const env = parseEnv({ RAINCHECK_DATA_DIR: dir(), ...options.vars });
  const service = new ConfigService({
    env,
    bus: new EventBus(),
    clock: new ManualClock(T0_MS),
    logger: silentLogger(),
    buildId: options.buildId === undefined ? BUILD : options.buildId,
  });
  validate.validateDocument.mockClear();
  await service.load();
  return { service, applied: service.current, validated: validate.validateDocument.mock.calls.length > 0 };
}

const configPath = (): string => path.join(dir(), 'config.toml');
const cachePath = (): string => path.join(dir(), VALIDATED_CACHE_FILE);
const writeConfig = (doc: JsonObject | string): void =>
  fs.writeFileSync(configPath(), typeof doc === 'string' ? doc : toToml(doc));

/** What a boot applies, without the fields that differ between any two boots. */
function applied(a: AppliedConfig | null): unknown {
  return a && { config: a.config, document: a.document, kindConfigs: a.kindConfigs };
}

/** Documents with sources and controllers of several kinds, their blocks relying on defaults. */
function docs(): JsonObject[] {
  const withCloud = validDoc();
  withCloud.sources = [
    ...(withCloud.sources as JsonObject[]),
    { id: 'nws', kind: 'nws', config: {} },
    { id: 'owm', kind: 'openweather', priority: 20, config: { api_key: 'k-123' } },
    { id: 'mystery', kind: 'not_a_kind', config: { x: 1 } },
  ];
  withCloud.controllers = [
    ...(withCloud.controllers as JsonObject[]),
    {
      id: 'os',
      kind: 'opensprinkler',
      config: { host: '192.168.1.50', password_md5: 'a'.repeat(32) },
    },
    { id: 'hw', kind: 'hydrawise', config: { zone_map: { front_lawn: '1' } } },
  ];
  withCloud.engine = { scheduling_model: 'weekly' };
  const minimal: JsonObject = { schema_version: 2, deployment: { location: { lat: 51.5, lon: -0.1 } } };
  const typo = validDoc();
  (typo.zones as Record<string, JsonObject>).front_lawn!.sprinkler_typ = 'rotor';
  return [validDoc(), withCloud, minimal, typo];
}

it('a second boot on the same file applies the cached validation, equal to validating it', async () => {
  for (const doc of docs()) {
    fs.rmSync(cachePath(), { force: true });
    writeConfig(doc);
    const first = await boot();
    expect(first.validated).toBe(true);
    expect(first.service.health.status).toBe('ok');
    expect(fs.statSync(cachePath()).mode & 0o777).toBe(0o600);

    const second = await boot();
    expect(second.validated).toBe(false);
    expect(applied(second.applied)).toEqual(applied(first.applied));
    // Deep equal including key order (what the demo seed test holds too).
    expect(JSON.stringify(applied(second.applied))).toBe(JSON.stringify(applied(first.applied)));
    expect(second.service.health).toEqual(first.service.health);
    expect(second.applied?.appliedAtEpoch).toBe(first.applied?.appliedAtEpoch);
  }
});

it('the cache keeps each kind block as its schema parsed it, defaults filled', async () => {
  writeConfig(docs()[1]!);
  const { applied: first } = await boot();
  expect(first?.kindConfigs?.sources.tempest).toEqual({ bind_addr: '0.0.0.0:50222' });
  expect(first?.kindConfigs?.sources.mystery).toBeUndefined();
  expect(first?.kindConfigs?.controllers.os).toMatchObject({ host: '192.168.1.50' });
  const { applied: second } = await boot();
  expect(second?.kindConfigs).toEqual(first?.kindConfigs);
});

it('a one-byte change of config.toml misses the cache, validates, and rewrites the cache', async () => {
  writeConfig(validDoc());
  await boot();
  const before = fs.readFileSync(cachePath(), 'utf8');
  fs.writeFileSync(configPath(), fs.readFileSync(configPath(), 'utf8').replace('lat = 30.27', 'lat = 30.28'));
  const edited = await boot();
  expect(edited.validated).toBe(true);
  expect(edited.applied?.config.deployment.location.lat).toBe(30.28);
  expect(fs.readFileSync(cachePath(), 'utf8')).not.toBe(before);
  expect((await boot()).validated).toBe(false);
});

it('a hand edit that makes the file invalid is refused even though a cache exists', async () => {
  writeConfig(validDoc());
  await boot();
  const text = fs.readFileSync(configPath(), 'utf8');
  fs.writeFileSync(configPath(), text.replace('scheduling_model = "soil"', 'scheduling_model = "daily"'));
  const edited = await boot();
  expect(edited.validated).toBe(true);
  expect(edited.service.health.status).toBe('invalid');
});

it('a corrupt or foreign cache file is ignored and replaced', async () => {
  writeConfig(validDoc());
  for (const junk of ['{"format":1,"key":', '[]', JSON.stringify({ format: 1, key: 'x', config: {} })]) {
    fs.writeFileSync(cachePath(), junk);
    const booted = await boot();
    expect(booted.validated).toBe(true);
    expect(booted.service.health.status).toBe('ok');
    expect((await boot()).validated).toBe(false);
  }
});

it('a cache written by another build, or no build id at all, is not used', async () => {
  writeConfig(validDoc());
  await boot({ buildId: 'build-1' });
  expect((await boot({ buildId: 'build-2' })).validated).toBe(true);
  expect((await boot({ buildId: 'build-2' })).validated).toBe(false);

  fs.rmSync(cachePath());
  expect((await boot({ buildId: null })).validated).toBe(true);
  expect(fs.existsSync(cachePath())).toBe(false);
  expect((await boot({ buildId: null })).validated).toBe(true);
});

it('a file that uses ${VAR} is never cached, not even when the escape hides it from the bytes', async () => {
  const doc = validDoc();
  (doc.deployment as JsonObject).display_name = '${YARD_NAME}';
  writeConfig(doc);
  const first = await boot({ vars: { YARD_NAME: 'secret yard' } });
  expect(first.applied?.config.deployment.display_name).toBe('secret yard');
  expect(fs.existsSync(cachePath())).toBe(false);
  expect((await boot({ vars: { YARD_NAME: 'other' } })).applied?.config.deployment.display_name).toBe(
    'other',
  );

  writeConfig(
    toToml(validDoc()).replace('display_name = "Test yard"', 'display_name = "\\u0024{YARD_NAME}"'),
  );
  const escaped = await boot({ vars: { YARD_NAME: 'secret yard' } });
  expect(escaped.applied?.config.deployment.display_name).toBe('secret yard');
  expect(fs.existsSync(cachePath())).toBe(false);
  expect(fs.readdirSync(dir()).join(' ')).not.toContain('validated');
});

it('a save refreshes the cache; a save that adds ${VAR} removes it', async () => {
  writeConfig(validDoc());
  const { service } = await boot();
  const edited = validDoc();
  (edited.deployment as JsonObject).display_name = 'Saved yard';
  await service.save(edited, { note: 'test' });
  const afterSave = await boot();
  expect(afterSave.validated).toBe(false);
  expect(afterSave.applied?.config.deployment.display_name).toBe('Saved yard');

  await afterSave.service.saveRaw(toToml(validDoc()).replace('Test yard', 'Raw yard'), { note: 'raw' });
  const afterRaw = await boot();
  expect(afterRaw.validated).toBe(false);
  expect(afterRaw.applied?.config.deployment.display_name).toBe('Raw yard');

  (edited.deployment as JsonObject).display_name = 'Yard $${literal}';
  await afterRaw.service.save(edited, { note: 'literal' });
  expect(fs.existsSync(cachePath())).toBe(false);
});

it('a kill between writing config.toml and the cache leaves a stale cache the key rejects', async () => {
  writeConfig(validDoc());
  await boot();
  const staleCache = fs.readFileSync(cachePath());
  const { service } = await boot();
  const edited = validDoc();
  (edited.deployment as JsonObject).display_name = 'After the crash';
  await service.save(edited, { note: 'test' });
  // The state a kill -9 after the config's rename and before the cache's leaves.
  fs.writeFileSync(cachePath(), staleCache);
  const rebooted = await boot();
  expect(rebooted.validated).toBe(true);
  expect(rebooted.applied?.config.deployment.display_name).toBe('After the crash');
  expect((await boot()).validated).toBe(false);
});

it('a document that needs migrating validates, and its migrated file is then cached', async () => {
  const v1 = validDoc();
  v1.schema_version = 1;
  (v1.zones as Record<string, JsonObject>).front_lawn!.controller_station = 1;
  writeConfig(v1);
  const migrated = await boot();
  expect(migrated.validated).toBe(true);
  expect(migrated.applied?.config.zones.front_lawn?.controller_station).toBe('1');
  expect((await boot()).validated).toBe(false);
});

describe('build id', () => {
  it('is null running from sources and changes with any compiled module', () => {
    expect(computeBuildId(path.join(__dirname, '../../server/src/core'))).toBeNull();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-build-'));
    try {
      const core = path.join(root, 'dist/server/src/core');
      fs.mkdirSync(core, { recursive: true });
      fs.writeFileSync(path.join(core, 'a.js'), 'one');
      fs.writeFileSync(path.join(core, 'a.js.map'), '{}');
      const first = computeBuildId(core);
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect(computeBuildId(core)).toBe(first);
      fs.writeFileSync(path.join(core, 'a.js.map'), '{"x":1}');
      expect(computeBuildId(core)).toBe(first);
      fs.writeFileSync(path.join(core, 'a.js'), 'two');
      fs.utimesSync(path.join(core, 'a.js'), new Date(2020, 0, 1), new Date(2020, 0, 1));
      expect(computeBuildId(core)).not.toBe(first);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('changes when the build mirrors its dependencies again', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-build-'));
    try {
      const core = path.join(root, 'dist/server/src/core');
      fs.mkdirSync(core, { recursive: true });
      fs.writeFileSync(path.join(core, 'a.js'), 'one');
      const unmirrored = computeBuildId(core);
      const mirror = path.join(root, 'dist/server/node_modules');
      fs.mkdirSync(path.join(mirror, 'luxon'), { recursive: true });
      fs.writeFileSync(path.join(mirror, MIRROR_MANIFEST), '{"mirrored":{"node_modules/luxon":"3.7.2"}}');
      fs.utimesSync(path.join(mirror, MIRROR_MANIFEST), new Date(2020, 0, 1), new Date(2020, 0, 1));
      const mirrored = computeBuildId(core);
      expect(mirrored).not.toBe(unmirrored);
      fs.writeFileSync(path.join(mirror, 'luxon/index.js'), 'minified');
      expect(computeBuildId(core)).toBe(mirrored);
      fs.writeFileSync(path.join(mirror, MIRROR_MANIFEST), '{"mirrored":{"node_modules/luxon":"3.7.3"}}');
      expect(computeBuildId(core)).not.toBe(mirrored);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
