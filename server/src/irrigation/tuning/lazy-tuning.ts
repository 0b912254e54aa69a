import type { TuningService, TuningServiceDeps } from './tuning-service';

/**
 * The tuning service as routes and the digest use it, built on first use:
 * an idle service never loads the derivers, the report or the apply path
 * (see "Speed and memory" in docs/architecture.md).
 */
export type TuningApi = Pick<
  TuningService,
  'report' | 'dismiss' | 'undismiss' | 'apply' | 'visibleRecommendations'
>;

export function lazyTuningService(deps: TuningServiceDeps): TuningApi {
  let service: TuningService | null = null;
  const real = (): TuningService => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('./tuning-service') as typeof import('./tuning-service');
    return (service ??= new module.TuningService(deps));
  };
  return {
    report: (days) => real().report(days),
    dismiss: (body) => real().dismiss(body),
    undismiss: (body) => real().undismiss(body),
    apply: (body, write) => real().apply(body, write),
    visibleRecommendations: (days) => real().visibleRecommendations(days),
  };
}
