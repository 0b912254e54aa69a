import { Advisor, type AdvisorSettings } from '../../server/src/advisor/advisor';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import type { EngineOutput } from '../../server/src/irrigation/engine/types';
import { json, refusedBaseUrl, type LoopbackPeer } from '../helpers/loopback-peer';
import { llamaCppHandler, ollamaHandler, openAiHandler, startPeer } from './llm-peers';

/**
 * The advisor against loopback peers speaking the real Ollama, llama.cpp
 * server and OpenAI chat-completions formats: each provider's request and
 * answer, auto-probe order, a timeout, garbage, the engine text whenever the
 * model does not answer usefully, the cache, and no secret in what is sent.
 */

const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

const SECRET = 'sk-live-0123456789abcdef';
const PASSWORD = '5f4dcc3b5aa765d61d8327deb882cf99';
const NOW_MS = Date.UTC(2025, 6, 20, 16);
const REPLY = 'No watering today: the lawn still holds enough water.';

function engineOutput(reason = 'No zone needs water today.'): EngineOutput {
  return {
    verdict: 'none',
    decision: { date_local: '2025-07-20', epoch: NOW_MS / 1000, kind: 'none', zones: [] },
    snapshot: {
      decision_trace: {
        date_local: '2025-07-20',
        verdict: 'none',
        reason_code: 'no_water_needed',
        reason,
        deciding: 'model',
        skip_check: { verdict: 'water', reason_code: 'water', reason: 'no rule skips' },
        zones: {
          front: {
            name: 'Front lawn',
            model: 'soil',
            why: 'depletion 4.1 mm is below the trigger (RAW 12.0 mm)',
            decision: { planned_seconds: 0, reason_code: 'not_due' },
          },
        },
      },
    },
  } as unknown as EngineOutput;
}

function advisor(
  settings: Partial<AdvisorSettings> | null,
  extra: { anomalies?: string[]; clock?: ManualClock; engine?: () => EngineOutput } = {},
) {
  const clock = extra.clock ?? new ManualClock(NOW_MS);
  return new Advisor({
    clock,
    logger: silentLogger(),
    fetch,
    settings: () =>
      settings === null
        ? null
        : ({ provider: 'auto', timeout_s: 20, explanation_ttl_s: 300, ...settings } as AdvisorSettings),
    secrets: () => [SECRET, PASSWORD],
    engine: extra.engine ?? (() => engineOutput()),
    anomalies: () => (extra.anomalies ?? []).map((description) => ({ description })),
  });
}

const lastBody = (peer: LoopbackPeer) => JSON.parse(peer.requests.at(-1)?.body ?? '{}');

describe('the advisor, per provider', () => {
  it('ollama: POST /api/chat with the engine facts, never a secret; the reply is served as llm', async () => {
    const peer = await startPeer(ollamaHandler(['llama3.1:8b'], REPLY), peers);
    const a = advisor(
      { provider: 'ollama', base_url: peer.baseUrl, model: 'llama3.1:8b' },
      {
        anomalies: [
          `Station station is offline (last error: HTTP 401 from https://api.example/v1?key=${SECRET}).`,
        ],
      },
    );
    const answer = await a.explanation();
    expect(answer).toMatchObject({
      source: 'llm',
      text: REPLY,
      provider: 'ollama',
      model: 'llama3.1:8b',
      note: null,
    });
    expect(answer?.engine_text).toMatch(/^Verdict for 2025-07-20: none/);
    const chat = peer.requests.find((r) => r.path === '/api/chat');
    const body = JSON.parse(chat?.body ?? '{}');
    expect(body).toMatchObject({ model: 'llama3.1:8b', stream: false });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1].content).toContain('Front lawn');
    expect(body.messages[1].content).toContain('Station station is offline');
    for (const r of peer.requests) {
      expect(r.body).not.toContain(SECRET);
      expect(r.body).not.toContain(PASSWORD);
      expect(JSON.stringify(r.headers)).not.toContain(SECRET);
    }
    expect(chat?.body).toContain('***redacted***');
  });

  it('ollama: a model that is not pulled (404) serves the engine text with the reason', async () => {
    const peer = await startPeer(ollamaHandler(['mistral:7b'], REPLY), peers);
    const answer = await advisor({
      provider: 'ollama',
      base_url: peer.baseUrl,
      model: 'llama3.1:8b',
    }).explanation();
    expect(answer).toMatchObject({ source: 'engine', provider: 'ollama' });
    expect(answer?.text).toBe(answer?.engine_text);
    expect(answer?.note).toContain(
      'HTTP 404 from /api/chat: model "llama3.1:8b" not found, try pulling it first',
    );
  });

  it('llama.cpp server: the OpenAI-compatible route; an older build without it gets /completion', async () => {
    const current = await startPeer(llamaCppHandler(REPLY), peers);
    expect(await advisor({ provider: 'llamacpp', base_url: current.baseUrl }).explanation()).toMatchObject({
      source: 'llm',
      text: REPLY,
    });
    expect(lastBody(current)).toMatchObject({
      stream: false,
      messages: [{ role: 'system' }, { role: 'user' }],
    });
    expect(lastBody(current).model).toBeUndefined();

    const legacy = await startPeer(llamaCppHandler(REPLY, { legacy: true }), peers);
    expect(await advisor({ provider: 'llamacpp', base_url: legacy.baseUrl }).explanation()).toMatchObject({
      source: 'llm',
      text: REPLY,
    });
    expect(legacy.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /completion',
    ]);
    expect(lastBody(legacy).prompt).toContain('Front lawn');
  });

  it('openai_compat: the key only in the Authorization header; a wrong key falls back to the engine', async () => {
    const peer = await startPeer(openAiHandler(SECRET, ['gpt-4o-mini'], REPLY), peers);
    const good = await advisor({
      provider: 'openai_compat',
      base_url: `${peer.baseUrl}/v1`,
      model: 'gpt-4o-mini',
      api_key: SECRET,
    }).explanation();
    expect(good).toMatchObject({ source: 'llm', text: REPLY, provider: 'openai_compat' });
    const sent = peer.requests.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent?.body).not.toContain(SECRET);

    const bad = await advisor({
      provider: 'openai_compat',
      base_url: peer.baseUrl,
      model: 'gpt-4o-mini',
      api_key: 'sk-wrong',
    }).explanation();
    expect(bad).toMatchObject({ source: 'engine' });
    expect(bad?.note).toContain('HTTP 401 from /v1/chat/completions: Incorrect API key provided.');
  });
});

describe('auto', () => {
  it('probes probe_order in order and uses the first that answers', async () => {
    const llama = await startPeer(llamaCppHandler('from llama.cpp'), peers);
    const ollama = await startPeer(ollamaHandler(['llama3.1:8b'], 'from ollama'), peers);
    const a = advisor({
      provider: 'auto',
      probe_order: [await refusedBaseUrl(), llama.baseUrl, ollama.baseUrl],
    });
    expect(await a.explanation()).toMatchObject({
      source: 'llm',
      text: 'from llama.cpp',
      provider: 'llamacpp',
    });
    expect(ollama.requests).toEqual([]);
    // Detected by protocol: the llama.cpp peer answered /api/tags with 404 before /health.
    expect(llama.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/tags',
      'GET /health',
      'POST /v1/chat/completions',
    ]);

    const ollamaFirst = advisor({ provider: 'auto', probe_order: [ollama.baseUrl, llama.baseUrl] });
    expect(await ollamaFirst.explanation()).toMatchObject({
      text: 'from ollama',
      provider: 'ollama',
      model: 'llama3.1:8b',
    });
  });

  it('serves the engine text when no server answers', async () => {
    const answer = await advisor({ provider: 'auto', probe_order: [await refusedBaseUrl()] }).explanation();
    expect(answer).toMatchObject({ source: 'engine', provider: null });
    expect(answer?.note).toContain('no model server answered');
  });
});

describe('when the model does not answer usefully', () => {
  it('a timeout serves the engine text', async () => {
    const peer = await startPeer(() => ({ status: 200, body: '', hang: true }), peers);
    const answer = await advisor({
      provider: 'ollama',
      base_url: peer.baseUrl,
      model: 'm',
      timeout_s: 0.3,
    }).explanation();
    expect(answer).toMatchObject({ source: 'engine' });
    expect(answer?.note).toContain('no answer within 0.3 s');
  });

  it.each([
    [
      'an HTML page',
      { status: 200, body: '<html><body>It works!</body></html>', contentType: 'text/html' },
      'not JSON',
    ],
    ['JSON of another shape', json(200, { choices: [] }), 'without text'],
    [
      'an empty reply',
      json(200, { choices: [{ message: { role: 'assistant', content: '  <think>hmm</think> ' } }] }),
      'empty text',
    ],
  ])('garbage (%s) serves the engine text', async (_label, reply, reason) => {
    const peer = await startPeer(() => reply, peers);
    const answer = await advisor({
      provider: 'openai_compat',
      base_url: peer.baseUrl,
      model: 'm',
    }).explanation();
    expect(answer).toMatchObject({ source: 'engine' });
    expect(answer?.note).toContain(reason);
  });

  it('without an advisor the engine text is served and says so', async () => {
    const answer = await advisor(null).explanation();
    expect(answer).toMatchObject({ source: 'engine', provider: null, model: null });
    expect(answer?.note).toContain('no advisor is configured');
  });
});

describe('the cache', () => {
  it('asks the model once per explanation_ttl_s while the facts hold, again when they change', async () => {
    const peer = await startPeer(ollamaHandler(['m'], REPLY), peers);
    const clock = new ManualClock(NOW_MS);
    let reason = 'No zone needs water today.';
    const a = advisor(
      { provider: 'ollama', base_url: peer.baseUrl, model: 'm', explanation_ttl_s: 300 },
      { clock, engine: () => engineOutput(reason) },
    );
    const chats = () => peer.requests.filter((r) => r.path === '/api/chat').length;
    const [x, y] = await Promise.all([a.explanation(), a.explanation()]);
    expect(x).toBe(y);
    clock.advance(299_000);
    await a.explanation();
    expect(chats()).toBe(1);
    clock.advance(1000);
    await a.explanation();
    expect(chats()).toBe(2);
    reason = 'Irrigation is paused.';
    expect((await a.explanation())?.engine_text).toContain('Irrigation is paused.');
    expect(chats()).toBe(3);
  });
});
