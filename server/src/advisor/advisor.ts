import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { EngineOutput } from '../irrigation/engine/types';
import { explainVerdict } from '../irrigation/engine/explain';
import { probeFirst } from './llm-probe';
import { targetsOf, type LlmBlock, type LlmProvider } from './llm-target';
import { buildMessages, scrub } from './prompt';
import { CHAT } from './providers/index';
import type { ResolvedTarget } from './providers/chat';

/**
 * The LLM advisor (spec 2.6 `llm`, 4.4 explanation): today's decision and the
 * anomalies, phrased in plain language by the owner's own model server. It
 * never decides anything: it is handed the engine's account and the anomaly
 * descriptions, and whatever it says is only shown. Without an advisor, or
 * when the server fails, times out or answers garbage, the engine's own text
 * is served, and `source` says which (`llm` or `engine`, with `note` saying
 * why the engine's).
 *
 * Cached for `llm.explanation_ttl_s` (default 300 s, spec 8) while the facts
 * are unchanged, so a dashboard full of tabs asks the model once. `auto`
 * resolves its server by probing (llm-probe.ts) and keeps the answer for ten
 * minutes, or until a call to it fails.
 */

export interface Explanation {
  generated_epoch: number;
  source: 'llm' | 'engine';
  text: string;
  /** The engine's own account, always (what `text` rephrases). */
  engine_text: string;
  provider: LlmProvider | null;
  model: string | null;
  /** Why the engine's text is served (no advisor configured, the server failed); null when the model answered. */
  note: string | null;
}

/** The llm block as the config schema gives it, with what the advisor reads besides the target. */
export interface AdvisorSettings extends LlmBlock {
  timeout_s: number;
  explanation_ttl_s: number;
}

export interface AdvisorDeps {
  clock: Clock;
  logger: Logger;
  fetch: typeof fetch;
  /** Null when the advisor is off (no `[llm]` block, or `features.enable_advisor` false). */
  settings: () => AdvisorSettings | null;
  /** Every secret value of the config, to keep out of what is sent. */
  secrets: () => readonly string[];
  engine: () => EngineOutput | null;
  anomalies: () => readonly { description: string }[];
}

const DEFAULT_TTL_S = 300;
const RESOLVE_TTL_S = 600;
const PROBE_TIMEOUT_MS = 5000;

export class Advisor {
  private readonly log: Logger;
  private cache: { key: string; value: Explanation } | null = null;
  private pending: { key: string; promise: Promise<Explanation> } | null = null;
  private resolved: { key: string; at: number; target: ResolvedTarget } | null = null;

  constructor(private readonly deps: AdvisorDeps) {
    this.log = deps.logger.child({ module: 'advisor' });
  }

  /** Null before the engine has an answer (no config yet). */
  async explanation(): Promise<Explanation | null> {
    const output = this.deps.engine();
    if (!output) return null;
    const settings = this.deps.settings();
    const decision = explainVerdict(output);
    const anomalies = this.deps.anomalies().map((a) => a.description);
    const key = JSON.stringify([decision, anomalies, settings]);
    const now = epochSeconds(this.deps.clock);
    const ttl = settings?.explanation_ttl_s ?? DEFAULT_TTL_S;
    if (this.cache?.key === key && now - this.cache.value.generated_epoch < ttl) return this.cache.value;
    if (this.pending?.key === key) return this.pending.promise;
    const promise = this.compose(settings, decision, anomalies, now).then((value) => {
      this.cache = { key, value };
      return value;
    });
    this.pending = { key, promise };
    try {
      return await promise;
    } finally {
      if (this.pending?.promise === promise) this.pending = null;
    }
  }

  private async compose(
    settings: AdvisorSettings | null,
    decision: string,
    anomalies: string[],
    now: number,
  ): Promise<Explanation> {
    const engine = (note: string, target: ResolvedTarget | null = null): Explanation => ({
      generated_epoch: now,
      source: 'engine',
      text: decision,
      engine_text: decision,
      provider: target?.provider ?? null,
      model: target?.model ?? null,
      note,
    });
    if (!settings) return engine("no advisor is configured: this is the engine's own account");
    let target: ResolvedTarget | null = null;
    try {
      target = await this.target(settings, now);
      const text = await CHAT[target.provider]({
        fetch: this.deps.fetch,
        target,
        messages: buildMessages({ decision, anomalies }, this.deps.secrets()),
        signal: AbortSignal.timeout(settings.timeout_s * 1000),
      });
      return {
        generated_epoch: now,
        source: 'llm',
        text,
        engine_text: decision,
        provider: target.provider,
        model: target.model,
        note: null,
      };
    } catch (err) {
      this.resolved = null;
      const reason = scrub(describe(err, settings.timeout_s), this.deps.secrets());
      this.log.warn(
        { reason, provider: target?.provider ?? settings.provider },
        'the advisor failed; serving the engine text',
      );
      return engine(
        `the advisor did not answer usefully (${reason}): this is the engine's own account`,
        target,
      );
    }
  }

  /** The configured server, or for `auto` the first that answers a probe (kept for a while). */
  private async target(settings: AdvisorSettings, now: number): Promise<ResolvedTarget> {
    const key = JSON.stringify(settings);
    if (this.resolved?.key === key && now - this.resolved.at < RESOLVE_TTL_S) return this.resolved.target;
    const targets = targetsOf(settings);
    const first = targets[0];
    let target: ResolvedTarget;
    if (settings.provider !== 'auto' && first?.provider) {
      target = { provider: first.provider, baseUrl: first.baseUrl, model: first.model, apiKey: first.apiKey };
    } else {
      const found = await probeFirst(
        this.deps.fetch,
        targets,
        Math.min(PROBE_TIMEOUT_MS, settings.timeout_s * 1000),
      );
      const picked = targets.find((t) => t.baseUrl === found.base_url);
      target = {
        provider: found.provider,
        baseUrl: found.base_url,
        model: settings.model?.trim() || found.models?.[0] || null,
        apiKey: picked?.apiKey ?? null,
      };
    }
    this.resolved = { key, at: now, target };
    return target;
  }
}

function describe(err: unknown, timeoutS: number): string {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutS} s`;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof cause === 'string' ? cause : typeof message === 'string' ? message : String(err);
}
