import { baseOf } from '../llm-target';
import { MAX_REPLY_TOKENS, postJson, TEMPERATURE, usableText, type ChatCall } from './chat';

/**
 * Ollama's native chat API: POST /api/chat `{model, messages, stream: false,
 * options: {temperature, num_predict}}` answers one object
 * `{model, created_at, message: {role, content}, done: true, done_reason}`;
 * a missing model answers 404 `{error: "model \"x\" not found, try pulling it first"}`.
 */
export async function ollamaChat(call: ChatCall): Promise<string> {
  const { target, messages } = call;
  if (!target.model) throw new Error('ollama needs a model');
  const reply = await postJson(call, `${baseOf(target)}/api/chat`, {
    model: target.model,
    messages,
    stream: false,
    options: { temperature: TEMPERATURE, num_predict: MAX_REPLY_TOKENS },
  });
  const message = (reply.body as { message?: { content?: unknown } } | null)?.message;
  return usableText(message?.content);
}
