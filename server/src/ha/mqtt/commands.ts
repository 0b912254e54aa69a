import type { Logger } from '../../core/logger';
import type { ActionExecutor } from '../../irrigation/action-executor';
import type { EntityDescriptor } from '../entities/descriptor';

/**
 * Commands arriving on `raincheck/<install>/<key>/set`: the entity's catalog
 * descriptor turns the payload into an action body and the one action
 * executor (the same as POST /irrigation/action) carries it out. A payload
 * the entity does not understand changes nothing and is logged; a refused or
 * failed action is logged with its code. Commands run one at a time in
 * arrival order (OPEN then CLOSE must not overtake each other).
 */

export type CommandResult = 'done' | 'not_understood' | 'unknown_entity' | 'failed';

export interface MqttCommandDeps {
  executor: Pick<ActionExecutor, 'execute'>;
  logger: Logger;
  /** The current catalog (null before a config exists). */
  entities: () => readonly EntityDescriptor[] | null;
  /** After a command succeeded: publish the states again. */
  onDone: () => void;
}

const MAX_LOGGED_PAYLOAD = 200;

export class MqttCommands {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: MqttCommandDeps) {}

  /** Queues one command; resolves with what came of it. */
  handle(key: string, payload: string): Promise<CommandResult> {
    const result = this.queue.then(() => this.run(key, payload));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every queued command has finished. */
  async idle(): Promise<void> {
    await this.queue;
  }

  private async run(key: string, raw: string): Promise<CommandResult> {
    const { logger } = this.deps;
    const payload = raw.trim();
    const logged = payload.length > MAX_LOGGED_PAYLOAD ? `${payload.slice(0, MAX_LOGGED_PAYLOAD)}…` : payload;
    const entity = this.deps.entities()?.find((e) => e.key === key);
    if (!entity?.command) {
      logger.warn({ key, payload: logged }, 'mqtt command for an entity that takes none');
      return 'unknown_entity';
    }
    const body = entity.command(payload);
    if (!body) {
      logger.warn({ key, payload: logged }, 'mqtt command not understood');
      return 'not_understood';
    }
    try {
      const outcome = await this.deps.executor.execute(body);
      if (!outcome.ok) {
        logger.warn(
          { key, payload: logged, code: outcome.code, status: outcome.status, reason: outcome.message },
          'mqtt command failed',
        );
        return 'failed';
      }
    } catch (err) {
      logger.error({ key, payload: logged, err }, 'mqtt command failed unexpectedly');
      return 'failed';
    }
    logger.info({ key, kind: body.kind }, 'mqtt command done');
    this.deps.onDone();
    return 'done';
  }
}
