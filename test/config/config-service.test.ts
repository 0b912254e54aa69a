import fs from 'node:fs';
import path from 'node:path';
import type { AppliedConfig } from '../../server/src/config/config-types';
import { ConfigRejected } from '../../server/src/config/config-service';
import { demoConfig } from '../../server/src/config/demo-config';
import type { JsonObject } from '../../server/src/config/json-walk';
import { REDACTED } from '../../server/src/config/secrets';
import { SNAPSHOTS_RETAINED } from '../../server/src/config/snapshots';
import { parseToml } from '../../server/src/config/toml';
import { validateDocument, type ValidationReport } from '../../server/src/config/validate';
import {
  docWithSecrets,
  loadedService,
  makeService,
  readText,
  rejection,
  T0_MS,
  tempDir,
  useBuiltinKinds,
  validDoc,
  withoutNulls,
} from '../helpers/config-fixtures';

useBuiltinKinds();
const dir = tempDir();

function zonesOf(doc: JsonObject): Record<string, JsonObject> {
  return doc.zones as Record<string, JsonObject>;
}

async function expectRejected(promise: Promise<unknown>, code: string): Promise<ConfigRejected> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ConfigRejected);
  expect((err as ConfigRejected).code).toBe(code);
  return err as ConfigRejected;
}

describe('boot without a file', () => {
  it('serves the environment baseline and reports absent', async () => {
    const { service, configPath } = await loadedService(dir(), { LAT: '10', LON: '20' });
    expect(service.health.status).toBe('absent');
    expect(service.current).toBeNull();
    expect(service.present).toBe(false);
    expect(service.rawText()).toBeNull();
    expect(service.publicDocument()).toMatchObject({ deployment: { location: { lat: 10, lon: 20 } } });
    expect(service.validateStored()).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(service.validateStored().note).toBeDefined();
    expect(fs.existsSync(configPath)).toBe(false);
  });

  it('in DEMO mode writes the demo config', async () => {
    const { service, configPath } = await loadedService(dir(), { DEMO: '1' });
    expect(service.health.status).toBe('ok');
    expect(parseToml(readText(configPath))).toEqual(withoutNulls(demoConfig(null, null)));
    expect(service.current?.config.features.demo_mode).toBe(true);
    expect(service.health.report.warnings).toEqual([]);
    // Nothing was replaced, so there is nothing to snapshot.
    expect(service.listSnapshots()).toEqual([]);
  });

  it('in DEMO mode applies exactly what validating the demo config gives', async () => {
    const { service, configPath } = await loadedService(dir(), { DEMO: '1', LAT: '47.6', LON: '-122.3' });
    const text = readText(configPath);
    const validated = validateDocument(parseToml(text), {});
    expect(JSON.stringify(service.current?.config)).toBe(JSON.stringify(validated.config));
    expect(service.current?.document).toEqual(withoutNulls(demoConfig(47.6, -122.3)));
    expect(service.health.report).toEqual(validated.report);
  });

  it('in DEMO mode a second boot on the unchanged demo file applies the same config', async () => {
    const first = await loadedService(dir(), { DEMO: '1' });
    const second = await loadedService(dir(), { DEMO: '1' });
    const text = readText(second.configPath);
    expect(JSON.stringify(second.service.current?.config)).toBe(
      JSON.stringify(first.service.current?.config),
    );
    expect(JSON.stringify(second.service.current?.document)).toBe(JSON.stringify(parseToml(text)));
    expect(second.service.health).toEqual({ status: 'ok', report: { ok: true, errors: [], warnings: [] } });
  });

  it('in DEMO mode a hand-edited demo file is validated as any other', async () => {
    const { configPath } = await loadedService(dir(), { DEMO: '1' });
    const seeded = readText(configPath);
    fs.writeFileSync(configPath, seeded.replace('area_sqft = 2400', 'area_sqft = -1'));
    const edited = await loadedService(dir(), { DEMO: '1' });
    expect(edited.service.health.status).toBe('invalid');
    fs.writeFileSync(configPath, seeded.replace('area_sqft = 2400', 'area_sqft = 2500'));
    const { service } = await loadedService(dir(), { DEMO: '1' });
    expect(service.health.status).toBe('ok');
    expect(service.current?.config.zones.front_lawn?.area_sqft).toBe(2500);
    // The same file under other LAT/LON is not the demo seed for them: it loads as written.
    const moved = await loadedService(dir(), { DEMO: '1', LAT: '10', LON: '20' });
    expect(moved.service.current?.config.deployment.location).toMatchObject({ lat: 28.5383, lon: -81.3792 });
  });

  it('in DEMO mode uses LAT/LON from the environment', async () => {
    const { service } = await loadedService(dir(), { DEMO: 'yes', LAT: '-33.9', LON: '151.2' });
    expect(service.current?.config.deployment.location).toMatchObject({ lat: -33.9, lon: 151.2 });
  });

  it('in DEMO mode an existing file is kept, not replaced by the demo config', async () => {
    const first = await loadedService(dir());
    await first.service.save(validDoc(), { note: 'mine' });
    const before = readText(first.configPath);
    const { service } = await loadedService(dir(), { DEMO: '1' });
    expect(readText(first.configPath)).toBe(before);
    expect(service.current?.config.features.demo_mode).toBe(false);
  });
});

describe('save and reload', () => {
  it('writes TOML that a new service instance loads as the same document', async () => {
    const first = await loadedService(dir());
    const doc = docWithSecrets();
    const result = await first.service.save(doc, { note: 'first' });
    expect(result.saved).toMatchObject({ revision: 1, schema_version: 2, previous_snapshot_ts: null });
    expect(result.saved.applied_at_epoch).toBe(Math.floor(T0_MS / 1000));
    expect(result.validation.ok).toBe(true);

    const text = readText(first.configPath);
    expect(text.trimStart().startsWith('{')).toBe(false);
    expect(text).toMatch(/^schema_version = 2$/m);
    expect(text).toMatch(/^\[deployment\.location\]$/m);
    expect(text).toMatch(/^\[\[sources\]\]$/m);
    expect(parseToml(text)).toEqual(doc);

    const second = await loadedService(dir());
    expect(second.service.health.status).toBe('ok');
    expect(second.service.current?.document).toEqual(doc);
    expect(second.service.current?.config).toEqual(first.service.current?.config);
    expect(second.service.publicDocument()).toEqual(first.service.publicDocument());
  });

  it('stores nulls as absent keys, and they read back as defaults', async () => {
    const first = await loadedService(dir());
    const doc = validDoc();
    const front = zonesOf(doc).front_lawn!;
    front.max_run_minutes = null;
    front.rain_credit_cap_in = null;
    (doc.deployment as JsonObject).timezone = null;
    await first.service.save(doc, { note: 'nulls' });

    const text = readText(first.configPath);
    expect(text).not.toMatch(/max_run_minutes/);
    expect(text).not.toMatch(/rain_credit_cap_in/);
    expect(text).not.toMatch(/timezone/);
    const stored = parseToml(text);
    expect(zonesOf(stored).front_lawn).not.toHaveProperty('max_run_minutes');
    expect(stored).toEqual(withoutNulls(doc));

    // What runs now is exactly what runs after a restart: no null in memory that reads back as absent.
    expect(first.service.current?.document).toEqual(withoutNulls(doc));
    expect(first.service.current?.config.zones.front_lawn).not.toHaveProperty('max_run_minutes');
    const second = await loadedService(dir());
    expect(second.service.current?.config.zones.front_lawn?.max_run_minutes).toBeUndefined();
    expect(second.service.current?.config).toEqual(first.service.current?.config);
    expect(second.service.current?.document).toEqual(first.service.current?.document);
  });

  it('a null means "use the default" even for a field with a default rather than a null', async () => {
    const { service, configPath } = await loadedService(dir());
    const doc = validDoc();
    (doc.deployment as JsonObject).units = null;
    doc.engine = { soak_minutes: null, skip_rules: { max_wind_mph: null } };
    await service.save(doc, { note: 'defaults' });
    expect(service.current?.config.deployment.units).toBe('imperial');
    expect(service.current?.config.engine.soak_minutes).toBe(30);
    expect(service.current?.config.engine.skip_rules.max_wind_mph).toBe(10);
    expect(readText(configPath)).not.toMatch(/soak_minutes|max_wind_mph|units/);
  });

  it('emits config.changed once per save, with previous and next', async () => {
    const { service, bus } = await loadedService(dir());
    const events: { previous: AppliedConfig | null; next: AppliedConfig }[] = [];
    bus.on('config.changed', (e) => events.push(e));

    await service.save(validDoc(), { note: 'one' });
    expect(events).toHaveLength(1);
    expect(events[0]?.previous).toBeNull();
    expect(events[0]?.next.revision).toBe(1);
    expect(events[0]?.next).toBe(service.current);

    const doc = validDoc();
    zonesOf(doc).front_lawn!.max_run_minutes = 50;
    await service.save(doc, { note: 'two' });
    expect(events).toHaveLength(2);
    expect(events[1]?.previous).toBe(events[0]?.next);
    expect(events[1]?.next.revision).toBe(2);
    expect(events[1]?.previous?.config.zones.front_lawn?.max_run_minutes).toBe(45);
    expect(events[1]?.next.config.zones.front_lawn?.max_run_minutes).toBe(50);

    // A rejected save emits nothing.
    zonesOf(doc).front_lawn!.max_run_minutes = 1;
    await expectRejected(service.save(doc, { note: 'bad' }), 'config_invalid');
    expect(events).toHaveLength(2);
  });

  it('applies interpolation for the runtime but stores the references', async () => {
    const { service, configPath } = await loadedService(dir(), { YARD: 'Home' });
    const doc = validDoc();
    (doc.deployment as JsonObject).display_name = '${YARD} yard';
    await service.save(doc, { note: 'x' });
    expect(service.current?.config.deployment.display_name).toBe('Home yard');
    expect((service.current?.document.deployment as JsonObject).display_name).toBe('${YARD} yard');
    expect(readText(configPath)).toContain('${YARD} yard');
  });

  it('rejects an invalid save with config_invalid and leaves the file byte-identical', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(validDoc(), { note: 'good' });
    const before = readText(configPath);
    const applied = service.current;
    const snapshots = service.listSnapshots();

    const doc = validDoc();
    zonesOf(doc).front_lawn!.sessions_per_week = 8;
    const err = await expectRejected(service.save(doc, { note: 'bad' }), 'config_invalid');
    const validation = err.details.validation as ValidationReport;
    expect(validation.ok).toBe(false);
    expect(validation.errors).toEqual([
      expect.objectContaining({
        code: 'zone_sessions_per_week_range',
        path: '$.zones.front_lawn.sessions_per_week',
      }),
    ]);

    const orphan = validDoc();
    orphan.controllers = [];
    const second = await expectRejected(service.save(orphan, { note: 'bad' }), 'config_invalid');
    expect((second.details.validation as ValidationReport).errors.map((e) => e.code)).toEqual([
      'zone_controller_unknown',
      'zone_controller_unknown',
    ]);
    expect(readText(configPath)).toBe(before);
    expect(service.current).toBe(applied);
    expect(service.listSnapshots()).toEqual(snapshots);
  });

  it('rejects a candidate that is not an object or names a newer schema', async () => {
    const { service } = await loadedService(dir());
    await expectRejected(service.save([1, 2], { note: 'x' }), 'config_invalid');
    const doc = validDoc();
    doc.schema_version = 3;
    const err = await expectRejected(service.save(doc, { note: 'x' }), 'config_invalid');
    expect((err.details.validation as ValidationReport).errors[0]?.code).toBe('schema_version_unsupported');
  });

  it('a save with warnings succeeds and returns them', async () => {
    const { service } = await loadedService(dir());
    const doc = validDoc();
    doc.extra_section = { a: 1 };
    const result = await service.save(doc, { note: 'x' });
    expect(result.validation.warnings).toEqual([
      expect.objectContaining({ code: 'unknown_field', path: '$.extra_section' }),
    ]);
  });

  it('preview validates like a save but writes nothing', async () => {
    const { service, configPath } = await loadedService(dir());
    expect(service.preview(validDoc())).toMatchObject({ ok: true, errors: [] });
    const doc = validDoc();
    zonesOf(doc).front_lawn!.rain_credit_cap_in = 9;
    expect(service.preview(doc).errors).toEqual([
      expect.objectContaining({ code: 'zone_rain_credit_cap_range' }),
    ]);
    expect(fs.existsSync(configPath)).toBe(false);
    expect(service.current).toBeNull();
  });
});

describe('zone key renames', () => {
  async function withTwoZones(): Promise<Awaited<ReturnType<typeof loadedService>>> {
    const handle = await loadedService(dir());
    await handle.service.save(validDoc(), { note: 'base' });
    return handle;
  }

  it('refuses a save that removes one zone key and adds another', async () => {
    const { service, configPath } = await withTwoZones();
    const before = readText(configPath);
    const doc = validDoc();
    const zones = zonesOf(doc);
    zones.front_yard = zones.front_lawn!;
    delete zones.front_lawn;
    const err = await expectRejected(service.save(doc, { note: 'rename' }), 'zone_key_renamed');
    expect(err.details).toEqual({ removed: ['front_lawn'], added: ['front_yard'] });
    expect(readText(configPath)).toBe(before);

    await service.save(doc, { note: 'rename', allowZoneKeyChange: true });
    expect(Object.keys(service.current?.config.zones ?? {}).sort()).toEqual(['back_lawn', 'front_yard']);
  });

  it('a rename through saveRaw is refused the same way', async () => {
    const { service, configPath } = await withTwoZones();
    const text = readText(configPath).replace('[zones.front_lawn]', '[zones.front_yard]');
    expect(text).toContain('[zones.front_yard]');
    await expectRejected(service.saveRaw(text, { note: 'raw rename' }), 'zone_key_renamed');
  });

  it('a pure addition is not a rename', async () => {
    const { service } = await withTwoZones();
    const doc = validDoc();
    zonesOf(doc).side_strip = { display_name: 'Side', controller_station: '3' };
    await service.save(doc, { note: 'add' });
    expect(Object.keys(service.current?.config.zones ?? {})).toHaveLength(3);
  });

  it('a pure removal is not a rename', async () => {
    const { service } = await withTwoZones();
    const doc = validDoc();
    delete zonesOf(doc).back_lawn;
    await service.save(doc, { note: 'remove' });
    expect(Object.keys(service.current?.config.zones ?? {})).toEqual(['front_lawn']);
  });

  it('removing all zones is not a rename', async () => {
    const { service } = await withTwoZones();
    const doc = validDoc();
    doc.zones = {};
    await service.save(doc, { note: 'remove all' });
    expect(service.current?.config.zones).toEqual({});
  });
});

describe('snapshots', () => {
  it('keeps exactly the newest 20 after 25 saves, newest first, each with its metadata', async () => {
    const { service, clock } = await loadedService(dir());
    const saved: number[] = [];
    for (let i = 1; i <= 25; i += 1) {
      const doc = validDoc();
      zonesOf(doc).front_lawn!.max_run_minutes = 10 + i;
      const result = await service.save(doc, { note: `save ${i}` });
      saved.push(result.saved.applied_at_epoch);
      clock.advance(60_000);
    }
    const list = service.listSnapshots();
    expect(SNAPSHOTS_RETAINED).toBe(20);
    expect(list).toHaveLength(20);
    expect(
      fs.readdirSync(path.join(dir(), 'config-snapshots')).filter((n) => n.endsWith('.toml')),
    ).toHaveLength(20);
    // Newest first: save 25 snapshotted the config of save 24, ... save 6 that of save 5.
    expect(list.map((s) => s.note)).toEqual(Array.from({ length: 20 }, (_, i) => `save ${25 - i}`));
    const ts = list.map((s) => Number(s.ts));
    expect([...ts].sort((a, b) => b - a)).toEqual(ts);
    for (const [i, snap] of list.entries()) {
      expect(snap.schema_version).toBe(2);
      expect(snap.ts).toMatch(/^\d{13,}$/);
      // The snapshot of save n holds the config applied by save n-1.
      expect(snap.applied_at_epoch).toBe(saved[23 - i]);
    }
    // The newest snapshot's content is the config the last save replaced.
    const newest = service.listSnapshots()[0]!;
    await service.rollback(newest.ts);
    expect(service.current?.config.zones.front_lawn?.max_run_minutes).toBe(34);
  });

  it('snapshot timestamps stay ordered when the clock does not move or steps back', async () => {
    const { service, clock } = await loadedService(dir());
    for (let i = 0; i < 4; i += 1) {
      await service.save(validDoc(), { note: `n${i}` });
      if (i === 2) clock.advance(-3_600_000);
    }
    const list = service.listSnapshots();
    expect(list.map((s) => s.note)).toEqual(['n3', 'n2', 'n1']);
    expect(new Set(list.map((s) => s.ts)).size).toBe(3);
  });

  it('rollback restores the snapshot content and first snapshots the current config', async () => {
    const { service, configPath } = await loadedService(dir());
    const a = validDoc();
    zonesOf(a).front_lawn!.max_run_minutes = 20;
    await service.save(a, { note: 'a' });
    const textA = readText(configPath);
    const b = validDoc();
    zonesOf(b).front_lawn!.max_run_minutes = 30;
    delete zonesOf(b).back_lawn;
    zonesOf(b).new_bed = { display_name: 'New', controller_station: '9' };
    await service.save(b, { note: 'b', allowZoneKeyChange: true });
    const textB = readText(configPath);

    const [snapOfA] = service.listSnapshots();
    expect(snapOfA?.note).toBe('b');
    // The rollback is a zone key change, and still allowed.
    const result = await service.rollback(snapOfA!.ts);
    expect(readText(configPath)).toBe(textA);
    expect(service.current?.config.zones.front_lawn?.max_run_minutes).toBe(20);
    expect(Object.keys(service.current?.config.zones ?? {}).sort()).toEqual(['back_lawn', 'front_lawn']);

    const list = service.listSnapshots();
    expect(list).toHaveLength(2);
    expect(list[0]?.note).toBe(`before rollback to ${snapOfA!.ts}`);
    expect(result.saved.previous_snapshot_ts).toBe(list[0]?.ts);
    // The snapshot taken by the rollback holds config B, so the rollback can be undone.
    await service.rollback(list[0]!.ts);
    expect(readText(configPath)).toBe(textB);
  });

  it('rollback to an unknown ts is snapshot_not_found and changes nothing', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(validDoc(), { note: 'a' });
    const before = readText(configPath);
    for (const ts of ['1234567890123', 'nope', '../config', '']) {
      const err = await expectRejected(service.rollback(ts), 'snapshot_not_found');
      expect(err.details).toEqual({ ts });
    }
    expect(readText(configPath)).toBe(before);
    expect(service.listSnapshots()).toEqual([]);
  });

  it('rollback keeps secrets that the snapshot holds', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(docWithSecrets(), { note: 'secrets' });
    await service.save(validDoc(), { note: 'no secrets' });
    const [snap] = service.listSnapshots();
    await service.rollback(snap!.ts);
    expect(readText(configPath)).toContain('smtp-pass-word');
    expect(readText(configPath)).not.toContain(REDACTED);
  });
});

describe('raw text', () => {
  it('saveRaw with broken TOML is config_invalid with a toml_parse error naming the line', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(validDoc(), { note: 'a' });
    const before = readText(configPath);
    const broken = 'schema_version = 2\n\n[deployment\nunits = "metric"\n';
    const err = await expectRejected(service.saveRaw(broken, { note: 'raw' }), 'config_invalid');
    const validation = err.details.validation as ValidationReport;
    expect(validation.ok).toBe(false);
    expect(validation.errors).toHaveLength(1);
    expect(validation.errors[0]).toMatchObject({ code: 'toml_parse', path: '$' });
    expect(validation.errors[0]?.message).toMatch(/line 3\b/);
    expect(readText(configPath)).toBe(before);
  });

  it('saveRaw with valid TOML saves it', async () => {
    const { service } = await loadedService(dir());
    const raw = `schema_version = 2
[deployment.location]
lat = 1.5
lon = 2.5
[zones.bed]
sessions_per_week = 3
`;
    const result = await service.saveRaw(raw, { note: 'raw' });
    expect(result.saved.revision).toBe(1);
    expect(service.current?.config.zones.bed?.sessions_per_week).toBe(3);
    // No controllers at all: the zone is unbound, which is a warning only.
    expect(result.validation.warnings.map((w) => w.code)).toEqual(['zone_unbound']);
  });

  it('rawText masks secrets but keeps comments of a hand-written file', async () => {
    const handWritten = `# My yard config
schema_version = 2 # current

[deployment.location]
lat = 30.1 # house
lon = -97.2

# forecast from the cloud
[[sources]]
id = "owm"
kind = "openweathermap"
  [sources.config]
  api_key = "owm-very-secret"   # from the account page
  units = "imperial"

[llm.config]
api_key = "\${LLM_KEY}"
base_url = 'http://llm.local'

[notifications.email]
smtp_host = "smtp.example.com"
password = 'single-quoted-secret'
from_address = "me@example.com"
to_address = "you@example.com"
`;
    fs.writeFileSync(path.join(dir(), 'config.toml'), handWritten);
    const { service } = await loadedService(dir(), { LLM_KEY: 'sk-x' });
    expect(service.health.status).toBe('ok');
    const raw = service.rawText();
    expect(raw).not.toBeNull();
    expect(raw).not.toContain('owm-very-secret');
    expect(raw).not.toContain('single-quoted-secret');
    expect(raw).toContain('# My yard config');
    expect(raw).toContain('# forecast from the cloud');
    expect(raw).toContain('lat = 30.1 # house');
    expect(raw).toContain(`api_key = "${REDACTED}"`);
    expect(raw).toContain(`password = "${REDACTED}"`);
    expect(raw).toContain('api_key = "${LLM_KEY}"');
    expect(raw).toContain("base_url = 'http://llm.local'");

    // The masked text can be sent back: sentinels restore the stored secrets.
    await service.saveRaw(raw!, { note: 'raw round trip' });
    const stored = service.current?.document as JsonObject;
    expect(((stored.sources as JsonObject[])[0]!.config as JsonObject).api_key).toBe('owm-very-secret');
    expect((stored.notifications as JsonObject).email).toMatchObject({ password: 'single-quoted-secret' });
  });

  it('rawText falls back to the redacted document when a secret hides where line masking cannot reach', async () => {
    const handWritten = `schema_version = 2
deployment = { location = { lat = 1, lon = 2 } }
notifications.ntfy = { base_url = "https://ntfy.sh", topic = "t", auth_token = "tk_inline_secret" }
`;
    fs.writeFileSync(path.join(dir(), 'config.toml'), handWritten);
    const { service } = await loadedService(dir());
    expect(service.health.status).toBe('ok');
    const raw = service.rawText()!;
    expect(raw).not.toContain('tk_inline_secret');
    expect(parseToml(raw)).toMatchObject({ notifications: { ntfy: { auth_token: REDACTED, topic: 't' } } });
  });
});

describe('raw text never serves a secret, however the file spells it', () => {
  it.each([
    [
      'an escaped secret in an inline table',
      'notifications.ntfy = { base_url = "b", topic = "t", auth_token = "tk\\u005Fsecret" }',
    ],
    [
      'an escaped secret under a dotted key',
      'notifications.slack.webhook_url = "https://hooks\\u002Eexample/x"',
    ],
    [
      'a multi-line secret',
      'notifications.mqtt.host = "h"\nnotifications.mqtt.password = """\nmulti-line-pw"""',
    ],
    [
      'a literal secret in an inline table',
      "notifications.ntfy = { base_url = 'b', topic = 't', auth_token = 'tk_lit' }",
    ],
  ])('%s', async (_label, line) => {
    const text = `# comment\nschema_version = 2\ndeployment.location = { lat = 1, lon = 2 }\n${line}\n`;
    fs.writeFileSync(path.join(dir(), 'config.toml'), text);
    const { service } = await loadedService(dir());
    expect(service.health.status).toBe('ok');
    const stored = service.current?.document.notifications as Record<string, JsonObject>;
    const secret = Object.values(stored)
      .flatMap((channel) => Object.entries(channel))
      .find(([key]) => ['auth_token', 'webhook_url', 'password'].includes(key))?.[1] as string;
    expect(secret.length).toBeGreaterThan(3);

    const raw = service.rawText()!;
    expect(raw).not.toContain(secret);
    // Parsed back, the served text holds no secret in any spelling.
    const servedSecrets = JSON.stringify(parseToml(raw));
    expect(servedSecrets).not.toContain(secret);
    expect(servedSecrets).toContain(REDACTED);
  });
});

describe('boot with a bad file', () => {
  it('a newer schema_version is unsupported: nothing applied, the file untouched', async () => {
    const text = 'schema_version = 99\n\n[deployment.location]\nlat = 1\nlon = 2\n\n[future]\nx = 1\n';
    fs.writeFileSync(path.join(dir(), 'config.toml'), text);
    const { service, configPath, bus } = makeService(dir());
    const events: unknown[] = [];
    bus.on('config.changed', (e) => events.push(e));
    await service.load();
    expect(service.health.status).toBe('unsupported');
    expect(service.health.report.errors).toEqual([
      expect.objectContaining({ code: 'schema_version_unsupported', path: '$.schema_version' }),
    ]);
    expect(service.current).toBeNull();
    expect(events).toEqual([]);
    expect(readText(configPath)).toBe(text);
    expect(service.listSnapshots()).toEqual([]);
    expect(service.validateStored().errors[0]?.code).toBe('schema_version_unsupported');
  });

  it('an invalid file is status invalid, still served, and can be fixed by a save', async () => {
    const doc = validDoc();
    zonesOf(doc).front_lawn!.sessions_per_week = 0;
    const text = `# keep me\nschema_version = 2\n[deployment.location]\nlat = 1\nlon = 2\n[zones.front_lawn]\nsessions_per_week = 0\n`;
    fs.writeFileSync(path.join(dir(), 'config.toml'), text);
    const { service, configPath } = await loadedService(dir());
    expect(service.health.status).toBe('invalid');
    expect(service.health.report.errors).toEqual([
      expect.objectContaining({ code: 'zone_sessions_per_week_range' }),
    ]);
    expect(service.current).toBeNull();
    expect(service.present).toBe(true);
    expect(service.publicDocument()).toMatchObject({ zones: { front_lawn: { sessions_per_week: 0 } } });
    expect(service.validateStored().ok).toBe(false);
    expect(readText(configPath)).toBe(text);

    await service.save(validDoc(), { note: 'fix' });
    expect(service.health.status).toBe('ok');
    expect(service.listSnapshots()[0]).toMatchObject({ note: 'fix', schema_version: 2 });
  });

  it('a file that is not TOML is status invalid with a toml_parse error', async () => {
    fs.writeFileSync(path.join(dir(), 'config.toml'), 'schema_version = = 2\n');
    const { service } = await loadedService(dir());
    expect(service.health.status).toBe('invalid');
    expect(service.health.report.errors).toEqual([expect.objectContaining({ code: 'toml_parse' })]);
    expect(service.health.report.errors[0]?.message).toMatch(/line 1\b/);
    expect(service.current).toBeNull();
  });

  it('a config at RAINCHECK_CONFIG is used instead of the data folder default', async () => {
    const custom = path.join(dir(), 'elsewhere', 'my.toml');
    const { service } = await loadedService(dir(), { RAINCHECK_CONFIG: custom });
    await service.save(validDoc(), { note: 'x' });
    expect(fs.existsSync(custom)).toBe(true);
    expect(fs.existsSync(path.join(dir(), 'config.toml'))).toBe(false);
  });
});

describe('write serialisation', () => {
  it('concurrent saves apply one at a time, in call order', async () => {
    const { service } = await loadedService(dir());
    const saves = [20, 30, 40].map((minutes) => {
      const doc = validDoc();
      zonesOf(doc).front_lawn!.max_run_minutes = minutes;
      return service.save(doc, { note: `m${minutes}` });
    });
    const results = await Promise.all(saves);
    expect(results.map((r) => r.saved.revision)).toEqual([1, 2, 3]);
    expect(service.current?.config.zones.front_lawn?.max_run_minutes).toBe(40);
    expect(service.listSnapshots().map((s) => s.note)).toEqual(['m40', 'm30']);
    await service.drain();
  });

  it('a rejected save does not block the next one', async () => {
    const { service } = await loadedService(dir());
    const bad = validDoc();
    delete bad.deployment;
    const first = service.save(bad, { note: 'bad' });
    const second = service.save(validDoc(), { note: 'good' });
    await expectRejected(first, 'config_invalid');
    await expect(second).resolves.toMatchObject({ saved: { revision: 1 } });
  });
});
