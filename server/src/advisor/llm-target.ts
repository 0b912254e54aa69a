/**
 * Where the advisor's model server is (spec 2.6 `llm`): one target for a
 * named provider, or for `auto` the entries of `probe_order` (default the
 * local ports 11434 ollama, 8080 llama.cpp server, 1234 an OpenAI-compatible
 * server such as LM Studio), tried in order. A probe_order entry that is a
 * base URL on another port has no provider yet: the probe finds out which
 * protocol it speaks.
 */

export type LlmProvider = 'ollama' | 'llamacpp' | 'openai_compat';

export interface LlmTarget {
  /** Null: detect by probing (an auto entry on an unknown port). */
  provider: LlmProvider | null;
  baseUrl: string;
  model: string | null;
  apiKey: string | null;
}

/** The llm block as the config schema parses it. */
export interface LlmBlock {
  provider: 'auto' | LlmProvider;
  base_url?: string | null;
  model?: string | null;
  api_key?: string | null;
  probe_order?: string[] | null;
}

export class LlmConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigError';
  }
}

export const AUTO_PORTS = ['11434', '8080', '1234'];
const PORT_PROVIDER: Record<string, LlmProvider> = {
  '11434': 'ollama',
  '8080': 'llamacpp',
  '1234': 'openai_compat',
};

export function targetsOf(llm: LlmBlock): LlmTarget[] {
  const baseUrl = llm.base_url?.trim() || null;
  const model = llm.model?.trim() || null;
  const apiKey = llm.api_key?.trim() || null;
  if (llm.provider === 'auto') {
    return (llm.probe_order ?? AUTO_PORTS).map((entry) => autoTarget(entry, model, apiKey));
  }
  const missing = [
    ...(baseUrl ? [] : ['base_url']),
    ...(llm.provider !== 'llamacpp' && !model ? ['model'] : []),
  ];
  if (missing.length > 0 || !baseUrl)
    throw new LlmConfigError(`provider ${llm.provider} needs ${missing.join(' and ')}`);
  checkUrl(baseUrl);
  return [{ provider: llm.provider, baseUrl, model, apiKey }];
}

/** A probe_order entry: a local port, or a base URL (its provider known by its port, else detected). */
function autoTarget(entry: string, model: string | null, apiKey: string | null): LlmTarget {
  const text = entry.trim();
  if (/^\d{1,5}$/.test(text)) {
    return { provider: PORT_PROVIDER[text] ?? null, baseUrl: `http://127.0.0.1:${text}`, model, apiKey };
  }
  checkUrl(text);
  return { provider: PORT_PROVIDER[new URL(text).port] ?? null, baseUrl: text, model, apiKey };
}

function checkUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LlmConfigError(`"${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LlmConfigError(`"${text}" is not an http(s) URL`);
  }
  if (url.username || url.password) throw new LlmConfigError('a base_url may not carry credentials');
}

/** `<base>` without trailing slashes. */
export function baseOf(target: Pick<LlmTarget, 'baseUrl'>): string {
  return target.baseUrl.replace(/\/+$/, '');
}

/** The OpenAI-compatible path under a base that may already end in /v1. */
export function openAiPath(base: string, path: '/models' | '/chat/completions'): string {
  return /\/v1$/.test(base) ? path : `/v1${path}`;
}
