import type { Logger } from '../core/logger';

/**
 * POST /system/restart (spec 4.8): refuses while a zone waters unless forced
 * (spec 7: 409 `watering_in_progress`), then restarts the way this install
 * is run. In the Home Assistant add-on (SUPERVISOR_TOKEN set) it asks the
 * Supervisor to restart the add-on (`POST /addons/self/restart`); anywhere
 * else it stops gracefully and exits with status 0 for the process manager
 * to start it again (systemd `Restart=always`, Docker `--restart
 * unless-stopped`: README). Both happen after the 202 is sent: the
 * Supervisor's restart stops this process before it could answer.
 *
 * A restart is what clears `restart_required`: a fresh process has no
 * adapter held back by a running valve and swaps in a staged database.
 */

export type RestartMode = 'supervisor' | 'exit';

export interface RestartDeps {
  logger: Logger;
  /** Zones watering now (the snapshot's running zones and the dispatcher's active runs). */
  runningZones: () => string[];
  /** The add-on's Supervisor: its API (http://supervisor, SUPERVISOR_API overrides) and token. */
  supervisor: { url: string; token: string } | null;
  /** Graceful stop and exit 0 (main.ts's shutdown path). */
  exit: () => void;
  fetch: typeof fetch;
}

export class WateringInProgress extends Error {
  constructor(readonly zones: string[]) {
    super(`zones are watering: ${zones.join(', ')}; stop them first or restart with {force: true}`);
  }
}

export class Restarter {
  private readonly log: Logger;

  constructor(private readonly deps: RestartDeps) {
    this.log = deps.logger.child({ module: 'restart' });
  }

  get mode(): RestartMode {
    return this.deps.supervisor ? 'supervisor' : 'exit';
  }

  /** Checks and answers the mode; `begin` is called once the answer is on its way. */
  request(force: boolean): RestartMode {
    const running = this.deps.runningZones();
    if (running.length > 0 && !force) throw new WateringInProgress(running);
    this.log.warn({ mode: this.mode, force, running }, 'restart requested');
    return this.mode;
  }

  begin(): void {
    if (this.mode === 'exit') {
      this.deps.exit();
      return;
    }
    void this.askSupervisor();
  }

  private async askSupervisor(): Promise<void> {
    const supervisor = this.deps.supervisor;
    if (!supervisor) return;
    try {
      const response = await this.deps.fetch(`${supervisor.url}/addons/self/restart`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${supervisor.token}` },
        signal: AbortSignal.timeout(30_000),
      });
      if (!response.ok) {
        this.log.error({ status: response.status }, 'the Supervisor refused the restart; still running');
      }
    } catch (err) {
      // The Supervisor stopping this container can cut the call short: that is the restart.
      this.log.warn({ err: (err as Error).message }, 'the Supervisor restart call ended without an answer');
    }
  }
}

export const SUPERVISOR_DEFAULT_URL = 'http://supervisor';

export function supervisorFrom(vars: NodeJS.ProcessEnv): RestartDeps['supervisor'] {
  const token = vars.SUPERVISOR_TOKEN?.trim();
  if (!token) return null;
  const url = (vars.SUPERVISOR_API?.trim() || SUPERVISOR_DEFAULT_URL).replace(/\/+$/, '');
  return { url, token };
}
