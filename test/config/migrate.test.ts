import fs from 'node:fs';
import type { JsonObject } from '../../server/src/config/json-walk';
import { ConfigService } from '../../server/src/config/config-service';
import { parseEnv } from '../../server/src/config/env';
import { migrateDocument } from '../../server/src/config/migrate';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { parseToml, toToml } from '../../server/src/config/toml';
import { validateDocument } from '../../server/src/config/validate';
import { loadedService, readText, tempDir, useBuiltinKinds, validDoc } from '../helpers/config-fixtures';

useBuiltinKinds();
const dir = tempDir();

/** A config as Raincheck schema 1 wrote it: integer stations, LLM fields directly under [llm]. */
const V1_TOML = `# Raincheck config, hand-edited
schema_version = 1

[deployment]
units = "imperial"
timezone = "America/Chicago"
display_name = "Old yard"

[deployment.location]
lat = 30.27
lon = -97.74

[[sources]]
id = "forecast"
priority = 50
kind = "open_meteo"

[sources.config]
past_days = 5

[[controllers]]
id = "os"
default = true
kind = "opensprinkler"

[controllers.config]
host = "192.168.1.50"
password_md5 = "0123456789abcdef0123456789abcdef"

[zones.front_lawn]
display_name = "Front lawn"
species = "bermuda"
controller_id = "os"
controller_station = 3
max_run_minutes = 40

[zones.back_lawn]
display_name = "Back lawn"
species = "zoysia"
controller_station = "4"

[llm]
provider = "ollama"
base_url = "http://127.0.0.1:11434"
model = "llama3.1:8b"
timeout_s = 30
probe_order = ["11434", "8080"]
`;

function v1Doc(): JsonObject {
  return parseToml(V1_TOML);
}

describe('migrateDocument v1 -> v2', () => {
  it('turns integer stations into strings and keeps the LLM provider fields on [llm]', () => {
    const input = v1Doc();
    const before = JSON.stringify(input);
    const { doc, from, to } = migrateDocument(input);
    expect([from, to]).toEqual([1, 2]);
    expect(doc.schema_version).toBe(2);
    const zones = doc.zones as Record<string, JsonObject>;
    expect(zones.front_lawn?.controller_station).toBe('3');
    expect(zones.back_lawn?.controller_station).toBe('4');
    expect(doc.llm).toEqual({
      provider: 'ollama',
      base_url: 'http://127.0.0.1:11434',
      model: 'llama3.1:8b',
      timeout_s: 30,
      probe_order: ['11434', '8080'],
    });
    // The input document is not mutated.
    expect(JSON.stringify(input)).toBe(before);
  });

  it('preserves every other value', () => {
    const input = v1Doc();
    const { doc } = migrateDocument(input);
    expect(doc.deployment).toEqual(input.deployment);
    expect(doc.sources).toEqual(input.sources);
    expect(doc.controllers).toEqual(input.controllers);
    const { controller_station: _a, ...frontRest } = (input.zones as Record<string, JsonObject>).front_lawn!;
    const { controller_station: _b, ...migratedFrontRest } = (doc.zones as Record<string, JsonObject>)
      .front_lawn!;
    expect(migratedFrontRest).toEqual(frontRest);
  });

  it('the migrated document validates and keeps its values', () => {
    const { doc } = migrateDocument(v1Doc());
    const { report, config } = validateDocument(doc, {});
    expect(report.errors).toEqual([]);
    expect(config?.llm?.provider).toBe('ollama');
    expect(config?.llm?.timeout_s).toBe(30);
    expect(config?.llm?.model).toBe('llama3.1:8b');
    expect(config?.zones.front_lawn?.max_run_minutes).toBe(40);
    expect(config?.sources[0]?.config).toEqual({ past_days: 5 });
    expect(config?.deployment.timezone).toBe('America/Chicago');
  });

  it('the v1 document itself does not validate as v2', () => {
    const doc = v1Doc();
    doc.schema_version = 2;
    expect(validateDocument(doc, {}).report.ok).toBe(false);
  });

  it('reads a v2 [llm.config] table (early builds) as fields on [llm]; a value already on [llm] wins', () => {
    const doc = validDoc();
    doc.llm = {
      provider: 'ollama',
      model: 'kept',
      config: { model: 'nested', base_url: 'http://127.0.0.1:11434' },
    };
    const { doc: migrated, from, to } = migrateDocument(doc);
    expect([from, to]).toEqual([2, 2]);
    expect(migrated.llm).toEqual({ provider: 'ollama', model: 'kept', base_url: 'http://127.0.0.1:11434' });
    expect(validateDocument(migrated, {}).report.errors).toEqual([]);
    expect((doc.llm as JsonObject).config).toBeDefined(); // the input is not mutated
  });

  it('leaves a v2 document untouched', () => {
    const doc = validDoc();
    const before = structuredClone(doc);
    const outcome = migrateDocument(doc);
    expect(outcome.from).toBe(2);
    expect(outcome.to).toBe(2);
    expect(outcome.doc).toEqual(before);
  });
});

describe('ConfigService.load() on a v2 file with an [llm.config] table', () => {
  it('serves the provider fields on [llm], also on a boot that adopts the cached validation', async () => {
    const text = `${toToml(validDoc())}\n[llm]\nprovider = "ollama"\n\n[llm.config]\nbase_url = "http://127.0.0.1:11434"\nmodel = "llama3"\n`;
    fs.writeFileSync(`${dir()}/config.toml`, text);
    for (const boot of [1, 2]) {
      // The second boot adopts what the first one cached for the same bytes.
      const service = new ConfigService({
        env: parseEnv({ RAINCHECK_DATA_DIR: dir() }),
        bus: new EventBus(),
        clock: new ManualClock(0),
        logger: silentLogger(),
        buildId: 'test-build',
      });
      await service.load();
      expect([boot, service.health.status]).toEqual([boot, 'ok']);
      expect(service.publicDocument().llm).toEqual({
        provider: 'ollama',
        base_url: 'http://127.0.0.1:11434',
        model: 'llama3',
      });
      expect(service.current?.config.llm?.model).toBe('llama3');
    }
  });
});

describe('ConfigService.load() on a v1 file', () => {
  it('rewrites the file as v2 and keeps the original v1 text as a snapshot', async () => {
    const { service, configPath } = await loadedService(dir(), {}, {});
    expect(service.health.status).toBe('absent');
    fs.writeFileSync(configPath, V1_TOML);

    const second = await loadedService(dir());
    expect(second.service.health.status).toBe('ok');
    const rewritten = parseToml(readText(configPath));
    expect(rewritten.schema_version).toBe(2);
    expect((rewritten.zones as Record<string, JsonObject>).front_lawn?.controller_station).toBe('3');
    expect((rewritten.llm as JsonObject).base_url).toBe('http://127.0.0.1:11434');
    expect(rewritten).toEqual(migrateDocument(v1Doc()).doc);

    const applied = second.service.current;
    expect(applied?.config.zones.front_lawn?.controller_station).toBe('3');
    expect(applied?.document.schema_version).toBe(2);

    const snapshots = second.service.listSnapshots();
    expect(snapshots).toHaveLength(1);
    const [snap] = snapshots;
    expect(snap?.note).toMatch(/migration/);
    expect(snap?.note).toMatch(/schema_version 1/);
    expect(snap?.schema_version).toBe(1);
    expect(typeof snap?.applied_at_epoch).toBe('number');

    // The snapshot keeps the v1 text byte for byte, comments and all.
    const snapText = readText(`${dir()}/config-snapshots/${snap?.ts}.toml`);
    expect(snapText.endsWith(V1_TOML)).toBe(true);
  });

  it('a rollback to the pre-migration snapshot migrates it again', async () => {
    fs.writeFileSync(`${dir()}/config.toml`, V1_TOML);
    const { service, configPath } = await loadedService(dir());
    const [snap] = service.listSnapshots();
    await service.rollback(snap!.ts);
    expect(parseToml(readText(configPath))).toEqual(migrateDocument(v1Doc()).doc);
  });

  it('a third boot loads the migrated file without migrating again', async () => {
    fs.writeFileSync(`${dir()}/config.toml`, V1_TOML);
    await loadedService(dir());
    const { service } = await loadedService(dir());
    expect(service.health.status).toBe('ok');
    expect(service.listSnapshots()).toHaveLength(1);
  });

  it('an invalid v1 file is refused at boot and left as it was', async () => {
    const broken = V1_TOML.replace('max_run_minutes = 40', 'max_run_minutes = 4');
    fs.writeFileSync(`${dir()}/config.toml`, broken);
    const { service, configPath } = await loadedService(dir());
    expect(service.health.status).toBe('invalid');
    expect(service.health.report.errors).toEqual([
      expect.objectContaining({
        code: 'zone_max_run_minutes_range',
        path: '$.zones.front_lawn.max_run_minutes',
      }),
    ]);
    expect(service.current).toBeNull();
    expect(readText(configPath)).toBe(broken);
    expect(service.listSnapshots()).toEqual([]);
  });

  it('fixing an invalid v1 file by a save snapshots it labelled schema_version 1', async () => {
    const broken = V1_TOML.replace('max_run_minutes = 40', 'max_run_minutes = 4');
    fs.writeFileSync(`${dir()}/config.toml`, broken);
    const { service } = await loadedService(dir());
    await service.save(validDoc(), { note: 'before fix' });
    const [snap] = service.listSnapshots();
    expect(snap).toMatchObject({ note: 'before fix', schema_version: 1 });
    expect(readText(`${dir()}/config-snapshots/${snap?.ts}.toml`).endsWith(broken)).toBe(true);
  });
});
