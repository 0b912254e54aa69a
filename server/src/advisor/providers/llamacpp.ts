import { baseOf } from '../llm-target';
import { MAX_REPLY_TOKENS, openAiChatText, postJson, TEMPERATURE, usableText, type ChatCall } from './chat';

/**
 * llama.cpp's server (tools/server): its OpenAI-compatible POST
 * /v1/chat/completions applies the model's chat template; a build without
 * it (404) gets the native POST /completion `{prompt, n_predict,
 * temperature, stream: false}`, which answers `{content, stop, ...}`, with
 * the messages laid out as plain text. The server serves the one model it
 * loaded; `model` is sent only when configured.
 */
export async function llamaCppChat(call: ChatCall): Promise<string> {
  const base = baseOf(call.target);
  try {
    const reply = await postJson(call, `${base}/v1/chat/completions`, {
      ...(call.target.model ? { model: call.target.model } : {}),
      messages: call.messages,
      temperature: TEMPERATURE,
      max_tokens: MAX_REPLY_TOKENS,
      stream: false,
    });
    return openAiChatText(reply.body);
  } catch (err) {
    if (!(err as Error).message.startsWith('HTTP 404')) throw err;
  }
  const prompt = `${call.messages.map((m) => `${m.role === 'system' ? 'Instructions' : 'Facts'}:\n${m.content}`).join('\n\n')}\n\nExplanation:\n`;
  const reply = await postJson(call, `${base}/completion`, {
    prompt,
    n_predict: MAX_REPLY_TOKENS,
    temperature: TEMPERATURE,
    stream: false,
  });
  return usableText((reply.body as { content?: unknown } | null)?.content);
}
