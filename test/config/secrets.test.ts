import { ConfigRejected } from '../../server/src/config/config-service';
import type { JsonObject, JsonValue } from '../../server/src/config/json-walk';
import {
  collectSecretValues,
  isSecretKey,
  REDACTED,
  redactSecrets,
  restoreSecrets,
} from '../../server/src/config/secrets';
import {
  docWithSecrets,
  loadedService,
  readText,
  rejection,
  tempDir,
  useBuiltinKinds,
  validDoc,
} from '../helpers/config-fixtures';

useBuiltinKinds();
const dir = tempDir();

const SECRET_VALUES = [
  'owm-secret-key-1234',
  'wu-secret-key-5678',
  'a'.repeat(32),
  'rachio-token-abc',
  'sk-llm-secret',
  'mqtt-pass-word',
  'tk_ntfy_secret',
  'https://hooks.slack.com/services/T000/B000/XXXX',
  'smtp-pass-word',
];

function at(doc: JsonValue, ...path: (string | number)[]): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, JsonValue>)[part as string];
  }
  return node;
}

describe('secret keys', () => {
  it.each([
    'api_key',
    'token',
    'auth_token',
    'password',
    'password_md5',
    'webhook_url',
    'access_token',
    'apikey',
    'application_key',
    'app_key',
    'private_key',
    'client_secret',
  ])('%s is secret-bearing', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each([
    'host',
    'username',
    'base_url',
    'topic',
    'vapid_private_path',
    'hub_serial',
    'tokenizer',
    'id',
    'keyword',
  ])('%s is not secret-bearing', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

describe('redactSecrets', () => {
  it('replaces every secret-bearing value wherever it sits', () => {
    const redacted = redactSecrets(docWithSecrets());
    expect(at(redacted, 'sources', 2, 'config', 'api_key')).toBe(REDACTED);
    expect(at(redacted, 'sources', 3, 'config', 'api_key')).toBe(REDACTED);
    expect(at(redacted, 'controllers', 1, 'config', 'password_md5')).toBe(REDACTED);
    expect(at(redacted, 'controllers', 2, 'config', 'api_key')).toBe(REDACTED);
    expect(at(redacted, 'llm', 'api_key')).toBe(REDACTED);
    expect(at(redacted, 'notifications', 'mqtt', 'password')).toBe(REDACTED);
    expect(at(redacted, 'notifications', 'ntfy', 'auth_token')).toBe(REDACTED);
    expect(at(redacted, 'notifications', 'slack', 'webhook_url')).toBe(REDACTED);
    expect(at(redacted, 'notifications', 'email', 'password')).toBe(REDACTED);

    // No secret value survives anywhere in the serialised document.
    const text = JSON.stringify(redacted);
    for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
  });

  it('leaves non-secret strings and the rest of the document untouched', () => {
    const doc = docWithSecrets();
    const redacted = redactSecrets(doc) as JsonObject;
    expect(at(redacted, 'notifications', 'email', 'username')).toBe('me@example.com');
    expect(at(redacted, 'notifications', 'email', 'smtp_host')).toBe('smtp.example.com');
    expect(at(redacted, 'notifications', 'ntfy', 'base_url')).toBe('https://ntfy.sh');
    expect(at(redacted, 'controllers', 1, 'config', 'host')).toBe('192.168.1.50');
    expect(at(redacted, 'sources', 3, 'config', 'station_id')).toBe('KTXAUSTI123');
    expect(at(redacted, 'llm', 'base_url')).toBe('http://llm.local:8080/v1');
    expect(redacted.zones).toEqual(doc.zones);
    expect(redacted.deployment).toEqual(doc.deployment);
    // Only the nine secret leaves changed.
    const changed: string[] = [];
    const walk = (a: JsonValue, b: JsonValue, path: string): void => {
      if (typeof a === 'string') {
        if (a !== b) changed.push(path);
        return;
      }
      if (a && typeof a === 'object') {
        for (const [k, v] of Object.entries(a)) walk(v, (b as Record<string, JsonValue>)[k]!, `${path}.${k}`);
      }
    };
    walk(doc, redacted, '$');
    expect(changed).toHaveLength(SECRET_VALUES.length);
    // The input was not mutated.
    expect(at(doc, 'llm', 'api_key')).toBe('sk-llm-secret');
  });

  it('keeps a pure ${VAR} reference visible, but redacts a secret that only embeds one', () => {
    const doc = validDoc();
    doc.llm = { api_key: '${LLM_KEY}' };
    doc.notifications = {
      ntfy: { base_url: 'https://ntfy.sh', topic: 't', auth_token: 'tk_${SUFFIX}' },
      mqtt: { host: 'h', password: '' },
    };
    const redacted = redactSecrets(doc);
    expect(at(redacted, 'llm', 'api_key')).toBe('${LLM_KEY}');
    expect(at(redacted, 'notifications', 'ntfy', 'auth_token')).toBe(REDACTED);
    // An empty secret holds nothing to hide.
    expect(at(redacted, 'notifications', 'mqtt', 'password')).toBe('');
    expect(collectSecretValues(doc)).toEqual(['tk_${SUFFIX}']);
  });
});

describe('restoreSecrets', () => {
  it('restores each sentinel from the stored value at the same place', () => {
    const stored = docWithSecrets();
    const { value, unmatched } = restoreSecrets(redactSecrets(stored), stored);
    expect(unmatched).toEqual([]);
    expect(value).toEqual(stored);
  });

  it('matches sources and controllers by id, not by position, when they are reordered', () => {
    const stored = docWithSecrets();
    const incoming = redactSecrets(stored) as JsonObject;
    (incoming.sources as JsonValue[]).reverse();
    (incoming.controllers as JsonValue[]).reverse();
    const { value, unmatched } = restoreSecrets(incoming, stored);
    expect(unmatched).toEqual([]);
    expect(at(value, 'sources', 0, 'id')).toBe('wu');
    expect(at(value, 'sources', 0, 'config', 'api_key')).toBe('wu-secret-key-5678');
    expect(at(value, 'sources', 1, 'id')).toBe('owm');
    expect(at(value, 'sources', 1, 'config', 'api_key')).toBe('owm-secret-key-1234');
    expect(at(value, 'controllers', 0, 'id')).toBe('cloud');
    expect(at(value, 'controllers', 0, 'config', 'api_key')).toBe('rachio-token-abc');
    expect(at(value, 'controllers', 1, 'config', 'password_md5')).toBe('a'.repeat(32));
  });

  it('reports a sentinel whose entry is new (its id is not stored) as unmatched', () => {
    const stored = docWithSecrets();
    const incoming = redactSecrets(stored) as JsonObject;
    const owm = (incoming.sources as JsonObject[]).find((s) => s.id === 'owm')!;
    owm.id = 'owm_renamed';
    const { unmatched } = restoreSecrets(incoming, stored);
    expect(unmatched).toEqual([{ path: '$.sources[2].config.api_key' }]);
  });

  it('keeps a newly typed value instead of the stored one', () => {
    const stored = docWithSecrets();
    const incoming = redactSecrets(stored) as JsonObject;
    incoming.llm = { ...(incoming.llm as JsonObject), base_url: 'http://x', api_key: 'sk-new' };
    const { value } = restoreSecrets(incoming, stored);
    expect(at(value, 'llm', 'api_key')).toBe('sk-new');
  });
});

describe('ConfigService redaction and sentinel restoration', () => {
  it('serves the stored config redacted and a save of the redacted copy keeps every secret', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(docWithSecrets(), { note: 'first' });
    const served = service.publicDocument();
    const servedText = JSON.stringify(served);
    for (const secret of SECRET_VALUES) expect(servedText).not.toContain(secret);

    // The client reorders sources and sends the sentinels back.
    (served.sources as JsonValue[]).reverse();
    await service.save(served, { note: 'second' });
    const stored = service.current?.document as JsonObject;
    const owm = (stored.sources as JsonObject[]).find((s) => s.id === 'owm');
    expect(at(owm!, 'config', 'api_key')).toBe('owm-secret-key-1234');
    expect(at(stored, 'notifications', 'email', 'password')).toBe('smtp-pass-word');
    const fileText = readText(configPath);
    expect(fileText).not.toContain(REDACTED);
    for (const secret of SECRET_VALUES) expect(fileText).toContain(secret);
  });

  it('refuses a sentinel with nothing stored behind it, from preview and from save', async () => {
    const { service, configPath } = await loadedService(dir());
    await service.save(validDoc(), { note: 'first' });
    const before = readText(configPath);

    const candidate = validDoc();
    candidate.notifications = { mqtt: { host: 'mqtt.local', password: REDACTED } };
    const preview = service.preview(candidate);
    expect(preview.ok).toBe(false);
    expect(preview.errors).toContainEqual(
      expect.objectContaining({ code: 'unmatched_redacted_secret', path: '$.notifications.mqtt.password' }),
    );

    const err = await rejection(service.save(candidate, { note: 'second' }));
    expect(err).toBeInstanceOf(ConfigRejected);
    const rejected = err as ConfigRejected;
    expect(rejected.code).toBe('unmatched_redacted_secret');
    expect(rejected.details.paths).toEqual(['$.notifications.mqtt.password']);
    expect(readText(configPath)).toBe(before);
  });

  it('refuses a sentinel on a fresh install, where nothing at all is stored', async () => {
    const { service } = await loadedService(dir());
    const candidate = validDoc();
    candidate.llm = { api_key: REDACTED };
    const report = service.preview(candidate);
    expect(report.errors).toEqual([
      expect.objectContaining({ code: 'unmatched_redacted_secret', path: '$.llm.api_key' }),
    ]);
  });

  it('keeps a ${VAR} secret reference visible and interpolates it only for the runtime', async () => {
    const { service, configPath } = await loadedService(dir(), { LLM_KEY: 'sk-from-env' });
    const doc = validDoc();
    doc.llm = {
      provider: 'openai_compat',
      base_url: 'http://x',
      model: 'm',
      api_key: '${LLM_KEY}',
    };
    await service.save(doc, { note: 'first' });
    expect(at(service.publicDocument(), 'llm', 'api_key')).toBe('${LLM_KEY}');
    expect(service.current?.config.llm?.api_key).toBe('sk-from-env');
    expect(readText(configPath)).not.toContain('sk-from-env');
    expect(service.rawText()).toContain('${LLM_KEY}');
  });
});
