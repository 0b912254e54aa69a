import type { LlmProvider } from '../llm-target';
import type { ChatCall } from './chat';
import { llamaCppChat } from './llamacpp';
import { ollamaChat } from './ollama';
import { openAiCompatChat } from './openai-compat';

export const CHAT: Record<LlmProvider, (call: ChatCall) => Promise<string>> = {
  ollama: ollamaChat,
  llamacpp: llamaCppChat,
  openai_compat: openAiCompatChat,
};
