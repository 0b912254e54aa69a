import type { ActionExecutor, ActionExecutorDeps } from './action-executor';

/** What routes and MQTT commands use of the action executor. */
export type ActionApi = Pick<ActionExecutor, 'execute'>;

/**
 * The action executor, built on the first action: an idle service never loads
 * it nor the action parsers (irrigation/controls/*-actions.ts), and V8 keeps
 * every loaded module's source in the heap (docs/architecture.md "Idle memory").
 */
export function lazyActionExecutor(deps: ActionExecutorDeps): ActionApi {
  let executor: ActionExecutor | null = null;
  return {
    execute: (body) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require('./action-executor') as typeof import('./action-executor');
      return (executor ??= new module.ActionExecutor(deps)).execute(body);
    },
  };
}
