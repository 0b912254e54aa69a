import type { LlmProvider } from '../llm-target';

/**
 * One chat completion against a model server, whatever protocol it speaks.
 * Each provider module turns the same messages into its own request and
 * reads the text out of its own answer; anything else (an HTTP error, a body
 * that is not what the protocol promises, no text) throws, and the advisor
 * serves the engine's text instead.
 */

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ResolvedTarget {
  provider: LlmProvider;
  baseUrl: string;
  model: string | null;
  apiKey: string | null;
}

export interface ChatCall {
  fetch: typeof fetch;
  target: ResolvedTarget;
  messages: readonly ChatMessage[];
  signal: AbortSignal;
}

/** The reply is a short explanation: enough room, never a novel. */
export const MAX_REPLY_TOKENS = 400;
export const TEMPERATURE = 0.2;
const MAX_TEXT = 2000;

export interface JsonReply {
  status: number;
  body: unknown;
}

export async function postJson(
  call: ChatCall,
  url: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const response = await call.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(payload),
    signal: call.signal,
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    if (response.ok)
      throw new Error(`${new URL(url).pathname} answered ${response.status} with a body that is not JSON`);
  }
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${new URL(url).pathname}${detailOf(body)}`);
  return { status: response.status, body };
}

/** Ollama `{error: "..."}`; OpenAI and llama.cpp `{error: {message}}`. */
function detailOf(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return `: ${error}`;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? `: ${message}` : '';
}

/** OpenAI chat completions `{choices: [{message: {content}}]}` (OpenAI, llama.cpp server, LM Studio). */
export function openAiChatText(body: unknown): string {
  const choices = (body as { choices?: unknown } | null)?.choices;
  const first = Array.isArray(choices)
    ? (choices[0] as { message?: { content?: unknown } } | undefined)
    : undefined;
  return usableText(first?.message?.content);
}

/**
 * The model's words, or a throw: trimmed, a reasoning model's `<think>`
 * block removed, capped in length. Empty or not text is no answer.
 */
export function usableText(value: unknown): string {
  if (typeof value !== 'string') throw new Error('the model server answered without text');
  const text = value.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  if (text === '') throw new Error('the model server answered with empty text');
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT).trimEnd()}…` : text;
}
