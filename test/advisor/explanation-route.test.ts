import request from 'supertest';
import { toToml } from '../../server/src/config/toml';
import { json, type LoopbackPeer } from '../helpers/loopback-peer';
import { configWithSecrets, SECRET_API_KEY, SECRET_PASSWORD_MD5, serviceTracker } from '../helpers/service';
import { ollamaHandler, startPeer } from './llm-peers';

/**
 * GET /irrigation/explanation over the real service: phrased by a loopback
 * Ollama from the real engine's trace with none of the config's secrets in
 * what it was sent; a peer answering garbage leaves the engine's text
 * (200, never a 500); an install without `[llm]` serves the engine's text.
 */

const services = serviceTracker();
const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

async function boot(llm: Record<string, unknown> | null) {
  const config = { ...configWithSecrets(), ...(llm ? { llm } : {}) };
  return services.boot({ configToml: toToml(config as never) });
}

it('is phrased by the configured model from the engine facts, without a secret', async () => {
  const peer = await startPeer(ollamaHandler(['llama3.1:8b'], 'Nothing to water today.'), peers);
  const { service } = await boot({ provider: 'ollama', base_url: peer.baseUrl, model: 'llama3.1:8b' });
  const res = await request(service.server).get('/api/v1/irrigation/explanation').expect(200);
  expect(res.body).toMatchObject({
    source: 'llm',
    text: 'Nothing to water today.',
    provider: 'ollama',
    note: null,
  });
  expect(res.body.engine_text).toContain('Front lawn');
  const sent = peer.requests.filter((r) => r.path === '/api/chat');
  expect(sent).toHaveLength(1);
  expect(sent[0]?.body).toContain('Front lawn');
  for (const secret of [SECRET_API_KEY, SECRET_PASSWORD_MD5]) expect(sent[0]?.body).not.toContain(secret);
  // Cached: a second look does not ask again.
  await request(service.server).get('/api/irrigation/explanation').expect(200);
  expect(peer.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
});

it('serves the engine text, not a 500, when the model answers garbage', async () => {
  const peer = await startPeer(() => json(200, { unexpected: true }), peers);
  const { service } = await boot({ provider: 'openai_compat', base_url: peer.baseUrl, model: 'm' });
  const res = await request(service.server).get('/api/v1/irrigation/explanation').expect(200);
  expect(res.body).toMatchObject({ source: 'engine' });
  expect(res.body.text).toMatch(/^Verdict for /);
  expect(res.body.note).toContain('without text');
});

it('serves the engine text without an [llm] block', async () => {
  const { service } = await boot(null);
  const res = await request(service.server).get('/api/v1/irrigation/explanation').expect(200);
  expect(res.body).toMatchObject({ source: 'engine', provider: null });
  expect(res.body.text).toBe(res.body.engine_text);
});

it.each([
  ['imperial', /\d(?: in\b| in\/hr\b|°F| mph\b)/, /\d(?: mm\b| mm\/h\b|°C| km\/h\b)/],
  ['metric', /\d(?: mm\b| mm\/h\b|°C| km\/h\b)/, /\d(?: in\b| in\/hr\b|°F| mph\b)/],
] as const)('explains in %s units, and the advisor is given them', async (units, own, other) => {
  const peer = await startPeer(ollamaHandler(['llama3.1:8b'], 'Nothing to water today.'), peers);
  const config = configWithSecrets();
  (config['deployment'] as Record<string, unknown>)['units'] = units;
  const { service } = await services.boot({
    configToml: toToml({
      ...config,
      llm: { provider: 'ollama', base_url: peer.baseUrl, model: 'llama3.1:8b' },
    } as never),
  });
  const res = await request(service.server).get('/api/v1/irrigation/explanation').expect(200);
  expect(res.body.engine_text).toMatch(own);
  expect(res.body.engine_text).not.toMatch(other);
  const sent = peer.requests.find((r) => r.path === '/api/chat')?.body ?? '';
  expect(sent).toMatch(own);
  expect(sent).not.toMatch(other);
});
