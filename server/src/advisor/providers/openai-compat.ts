import { baseOf, openAiPath } from '../llm-target';
import { MAX_REPLY_TOKENS, openAiChatText, postJson, TEMPERATURE, type ChatCall } from './chat';

/**
 * Any OpenAI-compatible server (LM Studio, vLLM, a gateway, OpenAI): POST
 * /v1/chat/completions (/chat/completions under a base ending in /v1)
 * `{model, messages, temperature, max_tokens, stream: false}` with the
 * api_key as a bearer token, answering `{choices: [{message: {content}}]}`.
 * The key travels only in the Authorization header.
 */
export async function openAiCompatChat(call: ChatCall): Promise<string> {
  const { target } = call;
  if (!target.model) throw new Error('openai_compat needs a model');
  const base = baseOf(target);
  const reply = await postJson(
    call,
    `${base}${openAiPath(base, '/chat/completions')}`,
    {
      model: target.model,
      messages: call.messages,
      temperature: TEMPERATURE,
      max_tokens: MAX_REPLY_TOKENS,
      stream: false,
    },
    target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
  );
  return openAiChatText(reply.body);
}
