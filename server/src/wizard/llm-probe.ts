import { LlmConfigError, targetsOf } from '../advisor/llm-target';
import { LlmUnreachable, probeFirst, type LlmProbeResult } from '../advisor/llm-probe';
import { llmSchema } from '../config/schema';
import { WizardError } from './wizard-error';

/**
 * POST /wizard/test_llm: one live request to the advisor's model server,
 * for the config's `[llm]` block as posted (advisor/llm-probe.ts says what
 * each provider is asked). Answers `{ok, provider, base_url, models,
 * model_available, latency_ms}`; 422 `llm_invalid` for a block that does not
 * validate or lacks what its provider needs; 502 `llm_unreachable` (with
 * `tried`) when no server answered.
 */

export const LLM_PROBE_TIMEOUT_MS = 5000;

export type { LlmProbeResult };

export async function probeLlm(
  fetchImpl: typeof fetch,
  posted: unknown,
  timeoutMs = LLM_PROBE_TIMEOUT_MS,
): Promise<LlmProbeResult> {
  const parsed = llmSchema.safeParse(posted);
  if (!parsed.success) {
    throw new WizardError(422, 'llm_invalid', 'the llm block is not valid', {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  try {
    return await probeFirst(fetchImpl, targetsOf(parsed.data), timeoutMs);
  } catch (err) {
    if (err instanceof LlmConfigError) throw new WizardError(422, 'llm_invalid', err.message);
    if (err instanceof LlmUnreachable)
      throw new WizardError(502, 'llm_unreachable', err.message, { tried: err.tried });
    throw err;
  }
}
