import { performance } from 'node:perf_hooks';
import { llmSchema } from '../config/schema';
import { describeFetchFailure, WizardError } from './wizard-error';

/**
 * POST /wizard/test_llm: one live request to the advisor's model server.
 * `ollama` GET <base>/api/tags, `llamacpp` GET <base>/health, `openai_compat`
 * GET <base>/v1/models (a base_url already ending in /v1 gets /models) with
 * the api_key as a bearer token. `auto` tries the local ports of spec 2.6 in
 * order (11434 ollama, 8080 llamacpp, 1234 openai_compat; `probe_order`
 * overrides with ports or base URLs), first success wins.
 *
 * Answers `{ok, provider, base_url, models, model_available, latency_ms}`:
 * `models` lists what the server offers (null for llamacpp), `model_available`
 * whether the configured model is among them (null when unknown). 422
 * `llm_invalid` for a block that does not validate or lacks what its provider
 * needs; 502 `llm_unreachable` when no server answered.
 */

export const LLM_PROBE_TIMEOUT_MS = 5000;
const AUTO_PORTS = ['11434', '8080', '1234'];
const PORT_PROVIDER: Record<string, ConcreteProvider> = {
  '11434': 'ollama',
  '8080': 'llamacpp',
  '1234': 'openai_compat',
};

type ConcreteProvider = 'ollama' | 'llamacpp' | 'openai_compat';

export interface LlmProbeResult {
  ok: true;
  provider: ConcreteProvider;
  base_url: string;
  models: string[] | null;
  model_available: boolean | null;
  latency_ms: number;
}

interface Target {
  provider: ConcreteProvider;
  baseUrl: string;
  model: string | null;
  apiKey: string | null;
}

export async function probeLlm(
  fetchImpl: typeof fetch,
  posted: unknown,
  timeoutMs = LLM_PROBE_TIMEOUT_MS,
): Promise<LlmProbeResult> {
  const targets = targetsOf(posted);
  const failures: string[] = [];
  for (const target of targets) {
    try {
      return await probeOne(fetchImpl, target, timeoutMs);
    } catch (err) {
      failures.push(`${target.provider} at ${target.baseUrl}: ${(err as Error).message}`);
    }
  }
  throw new WizardError(502, 'llm_unreachable', `no model server answered (${failures.join('; ')})`, {
    tried: targets.map((t) => ({ provider: t.provider, base_url: t.baseUrl })),
  });
}

function targetsOf(posted: unknown): Target[] {
  const parsed = llmSchema.safeParse(posted);
  if (!parsed.success) {
    throw new WizardError(422, 'llm_invalid', 'the llm block is not valid', {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  const { provider } = parsed.data;
  const baseUrl = parsed.data.base_url?.trim() || null;
  const model = parsed.data.model?.trim() || null;
  const apiKey = parsed.data.api_key?.trim() || null;
  if (provider === 'auto') {
    return (parsed.data.probe_order ?? AUTO_PORTS).map((entry) => autoTarget(entry, model, apiKey));
  }
  const missing = [...(baseUrl ? [] : ['base_url']), ...(provider !== 'llamacpp' && !model ? ['model'] : [])];
  if (missing.length > 0 || !baseUrl) {
    throw new WizardError(422, 'llm_invalid', `provider ${provider} needs ${missing.join(' and ')}`);
  }
  checkUrl(baseUrl);
  return [{ provider, baseUrl, model, apiKey }];
}

/** A probe_order entry: a local port, or a base URL (its provider guessed from the port). */
function autoTarget(entry: string, model: string | null, apiKey: string | null): Target {
  const text = entry.trim();
  if (/^\d{1,5}$/.test(text)) {
    return {
      provider: PORT_PROVIDER[text] ?? 'openai_compat',
      baseUrl: `http://127.0.0.1:${text}`,
      model,
      apiKey,
    };
  }
  checkUrl(text);
  const port = new URL(text).port;
  return { provider: PORT_PROVIDER[port] ?? 'openai_compat', baseUrl: text, model, apiKey };
}

function checkUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WizardError(422, 'llm_invalid', `"${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WizardError(422, 'llm_invalid', `"${text}" is not an http(s) URL`);
  }
  if (url.username || url.password)
    throw new WizardError(422, 'llm_invalid', 'a base_url may not carry credentials');
}

async function probeOne(fetchImpl: typeof fetch, target: Target, timeoutMs: number): Promise<LlmProbeResult> {
  const base = target.baseUrl.replace(/\/+$/, '');
  const path =
    target.provider === 'ollama'
      ? '/api/tags'
      : target.provider === 'llamacpp'
        ? '/health'
        : /\/v1$/.test(base)
          ? '/models'
          : '/v1/models';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.provider === 'openai_compat' && target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const started = performance.now();
  let response: Response;
  try {
    response = await fetchImpl(`${base}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(describeFetchFailure(err, timeoutMs), { cause: err });
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`HTTP ${response.status} on GET ${path}`);
  const models = modelNames(target.provider, body);
  if (target.provider !== 'llamacpp' && models === null)
    throw new Error(`GET ${path} answered without a model list`);
  return {
    ok: true,
    provider: target.provider,
    base_url: target.baseUrl,
    models,
    model_available: models && target.model ? hasModel(models, target.model) : null,
    latency_ms: Math.round(performance.now() - started),
  };
}

/** ollama `{models: [{name}]}`, OpenAI `{data: [{id}]}`; null when the body is neither. */
function modelNames(provider: ConcreteProvider, body: unknown): string[] | null {
  if (provider === 'llamacpp' || typeof body !== 'object' || body === null) return null;
  const list =
    provider === 'ollama' ? (body as { models?: unknown }).models : (body as { data?: unknown }).data;
  if (!Array.isArray(list)) return null;
  const key = provider === 'ollama' ? 'name' : 'id';
  return list.flatMap((item: unknown) => {
    const name = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : null;
    return typeof name === 'string' ? [name] : [];
  });
}

/** Ollama lists `llama3:latest` for a configured `llama3`. */
function hasModel(models: string[], model: string): boolean {
  return models.includes(model) || (!model.includes(':') && models.includes(`${model}:latest`));
}
