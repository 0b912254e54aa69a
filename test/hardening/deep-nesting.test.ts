import { jsonTextTooDeep, MAX_NESTING, valueTooDeep } from '../../server/src/core/nesting';
import { parseToml } from '../../server/src/config/toml';
import { json, send } from '../auth/auth-helpers';
import { minimalConfig, serviceTracker } from '../helpers/service';
import { INGEST_CONFIG, WEBHOOK_ID, WEBHOOK_SECRET } from './ingest-config';

/**
 * Issue 16, item 8: JSON nested a couple of thousand levels deep (4 KB)
 * overflowed the stack in the config and wizard handlers and answered 500.
 * It is refused with 400 `json_too_deep` before anything walks it; TOML
 * nested that deep is a parse error.
 */

const services = serviceTracker();

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('nesting limits', () => {
  it('measures JSON text without parsing it, strings and escapes skipped', () => {
    expect(jsonTextTooDeep('[[[1]]]', 3)).toBe(false);
    expect(jsonTextTooDeep('[[[[1]]]]', 3)).toBe(true);
    expect(jsonTextTooDeep('{"a":"[[[[[[[[\\"[[[["}', 1)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":"}}}}"},"c":[[]]}', 2)).toBe(true);
    expect(jsonTextTooDeep(JSON.stringify(nested(MAX_NESTING)))).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify(nested(MAX_NESTING + 1)))).toBe(true);
  });

  it('measures parsed values without recursing', () => {
    expect(valueTooDeep(nested(MAX_NESTING))).toBe(false);
    expect(valueTooDeep(nested(MAX_NESTING + 1))).toBe(true);
    expect(valueTooDeep(nested(100_000))).toBe(true);
    expect(valueTooDeep({ a: 1, b: 'x', c: null })).toBe(false);
  });

  it('refuses TOML nested past the limit, inline or through dotted keys', () => {
    const inline = `x = ${'['.repeat(2000)}${']'.repeat(2000)}\n`;
    expect(() => parseToml(inline)).toThrow();
    const dotted = `${Array.from({ length: 2000 }, (_, i) => `k${i}`).join('.')} = 1\n`;
    expect(() => parseToml(dotted)).toThrow(/nest deeper/);
    expect(parseToml('[a.b.c]\nd = [[1], [2]]\n')).toEqual({ a: { b: { c: { d: [[1], [2]] } } } });
  });
});

describe('deeply nested bodies over HTTP', () => {
  const deep = JSON.stringify(nested(2000));

  it.each([
    ['PUT', '/api/v1/config', (d: string) => d],
    ['POST', '/api/v1/config/preview', (d: string) => `{"candidate":${d}}`],
    ['PUT', '/api/v1/wizard/draft', (d: string) => d],
    ['POST', '/api/v1/wizard/test_controller', (d: string) => `{"controller":${d}}`],
    ['POST', '/api/v1/irrigation/simulate', (d: string) => `{"weather":{"x":${d}}}`],
    ['POST', '/api/v1/irrigation/action', (d: string) => `{"kind":"run","zone":${d}}`],
  ])('%s %s answers 400 json_too_deep', async (method, path, wrap) => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const payload = wrap(deep);
    expect(payload.length).toBeLessThan(8 * 1024);
    const res = await sendRaw(booted.port, method, path, payload);
    expect(res.status).toBe(400);
    expect(json(res)?.code).toBe('json_too_deep');
    // The service is still whole.
    expect((await send(booted.port, { path: '/api/v1/irrigation/snapshot' })).status).toBe(200);
  });

  it('takes ordinary nesting as before', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const res = await sendRaw(
      booted.port,
      'POST',
      '/api/v1/config/preview',
      JSON.stringify({ candidate: minimalConfig({ zones: { a: { display_name: nested(20) } } }) }),
    );
    expect(res.status).toBe(200);
    expect(json(res)?.ok).toBe(false);
  });

  it('a webhook body and raw TOML nested that deep are refused, not a 500', async () => {
    const booted = await services.boot({ configToml: INGEST_CONFIG });
    const path = `/ingest/webhook/${WEBHOOK_ID}?token=${WEBHOOK_SECRET}`;
    const hook = await sendRaw(booted.port, 'POST', path, deep);
    expect(hook.status).toBe(400);
    expect(json(hook)?.code).toBe('json_too_deep');
    const shallow = await sendRaw(booted.port, 'POST', path, JSON.stringify({ data: { temp_c: 21.5 } }));
    expect(shallow.status).toBe(200);
    const toml = await sendRaw(
      booted.port,
      'PUT',
      '/api/v1/config/raw',
      `schema_version = 2\nx = ${'['.repeat(2000)}${']'.repeat(2000)}\n`,
      'text/plain',
    );
    expect(toml.status).toBe(422);
    expect(json(toml)?.code).toBe('config_invalid');
  });
});

function sendRaw(port: number, method: string, path: string, body: string, type = 'application/json') {
  return send(port, {
    method,
    path,
    headers: { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) },
    rawBody: body,
  });
}
