import { performance } from 'node:perf_hooks';
import { describeFetchFailure } from '../core/fetch-failure';
import { baseOf, openAiPath, type LlmProvider, type LlmTarget } from './llm-target';

/**
 * One live look at a model server: ollama GET /api/tags, llama.cpp server
 * GET /health, OpenAI-compatible GET /v1/models (with the api_key as a
 * bearer token). A target without a provider (an auto entry on an unknown
 * port) is tried as each in that order. Shared by POST /wizard/test_llm and
 * the advisor's auto resolution.
 */

export interface LlmProbeResult {
  ok: true;
  provider: LlmProvider;
  base_url: string;
  /** What the server offers (null for llama.cpp, which serves one model). */
  models: string[] | null;
  /** Whether the configured model is among them (null when unknown). */
  model_available: boolean | null;
  latency_ms: number;
}

export class LlmUnreachable extends Error {
  constructor(
    message: string,
    readonly tried: { provider: LlmProvider | null; base_url: string }[],
  ) {
    super(message);
    this.name = 'LlmUnreachable';
  }
}

const DETECT_ORDER: LlmProvider[] = ['ollama', 'llamacpp', 'openai_compat'];

/** The first target that answers, in order; throws LlmUnreachable naming what was tried. */
export async function probeFirst(
  fetchImpl: typeof fetch,
  targets: readonly LlmTarget[],
  timeoutMs: number,
): Promise<LlmProbeResult> {
  const failures: string[] = [];
  for (const target of targets) {
    for (const provider of target.provider ? [target.provider] : DETECT_ORDER) {
      try {
        return await probeAs(fetchImpl, { ...target, provider }, timeoutMs);
      } catch (err) {
        failures.push(`${provider} at ${target.baseUrl}: ${(err as Error).message}`);
      }
    }
  }
  throw new LlmUnreachable(
    `no model server answered (${failures.join('; ')})`,
    targets.map((t) => ({ provider: t.provider, base_url: t.baseUrl })),
  );
}

async function probeAs(
  fetchImpl: typeof fetch,
  target: LlmTarget & { provider: LlmProvider },
  timeoutMs: number,
): Promise<LlmProbeResult> {
  const base = baseOf(target);
  const path =
    target.provider === 'ollama'
      ? '/api/tags'
      : target.provider === 'llamacpp'
        ? '/health'
        : openAiPath(base, '/models');
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
  if (target.provider === 'llamacpp' && (body as { status?: unknown } | null)?.status !== 'ok') {
    throw new Error(`GET ${path} did not answer {"status":"ok"}`);
  }
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
function modelNames(provider: LlmProvider, body: unknown): string[] | null {
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
export function hasModel(models: readonly string[], model: string): boolean {
  return models.includes(model) || (!model.includes(':') && models.includes(`${model}:latest`));
}
