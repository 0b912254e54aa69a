import { masterZones } from '../../config/master-config';
import type { RaincheckConfig } from '../../config/schema';
import type { Logger } from '../../core/logger';
import { DispatchError } from './dispatch-error';
import type { ValveDriver, ZoneRoute } from './driver';
import type { ValveWatchdog } from './valve-watchdog';

/**
 * Master valves and pumps (`[[masters]]`) on the one dispatch path: the
 * dispatcher opens a zone's masters before the zone and hands each back when
 * the zone ends.
 *
 * - Open: a master that is closed is commanded open (for its lead, the
 *   zone's seconds and its lag: a self-timed controller then closes it even
 *   if Raincheck is gone), and the zone waits the longest lead of those newly
 *   opened. One already open for another zone is shared (a self-timed one is
 *   commanded again when the new zone outlasts its commanded end).
 * - Close: when its last zone ends, a master closes `lag_s` later
 *   (`tick`); a stop that fails goes to the valve watchdog, which retries with
 *   back-off until one is accepted: a master is never left open. A master
 *   that cannot be opened or reached refuses the zone (502
 *   `master_unavailable`, or 400 `master_unbound`): no zone runs without its
 *   pump.
 * - A run resumed at boot reopens its masters (`resumeZone`, no lead: its
 *   zone is already open); one that cannot reopen closes the zone.
 * - stop_all stops every controller, masters included: they are forgotten.
 * Master stations are never read back, and their commands write no run rows
 * (they are not water); their failures are announced as the controllers'.
 */

export interface MasterValvesDeps {
  driver: ValveDriver;
  watchdog: ValveWatchdog;
  logger: Logger;
  config: () => Pick<RaincheckConfig, 'masters' | 'zones' | 'controllers'> | null | undefined;
  now: () => number;
  /** Waits the lead (real time; tests pass their own). */
  sleep: (seconds: number) => Promise<void>;
}

interface OpenMaster {
  name: string;
  route: ZoneRoute;
  lagS: number;
  users: Set<string>;
  /** The end the controller was commanded to (self-timed controllers close there themselves). */
  commandedUntil: number;
  /** When to close once no zone uses it; null while one does. */
  closeAt: number | null;
}

export class MasterValves {
  private readonly open = new Map<string, OpenMaster>();

  constructor(private readonly deps: MasterValvesDeps) {}

  /** Opens (or shares) the zone's masters and waits their lead; throws and opens nothing new on failure. */
  async beforeZone(zone: string, seconds: number): Promise<void> {
    const lead = await this.openFor(zone, seconds, true);
    if (lead > 0) await this.deps.sleep(lead);
  }

  /**
   * A run resumed at boot: its zone is already open, so its masters open (or
   * are shared) at once, commanded for the `seconds` left and their lag, and
   * close like any other's when the zone ends. Throws as `beforeZone` does.
   */
  async resumeZone(zone: string, seconds: number): Promise<void> {
    await this.openFor(zone, seconds, false);
  }

  /** Opens the zone's masters; answers the longest lead of those newly opened. */
  private async openFor(zone: string, seconds: number, withLead: boolean): Promise<number> {
    const config = this.deps.config();
    const masters = (config?.masters ?? []).filter((m) => config && masterZones(m, config).includes(zone));
    let lead = 0;
    try {
      for (const master of masters) {
        const key = `master:${master.name}`;
        const now = this.deps.now();
        const until = now + (withLead ? master.lead_s : 0) + seconds + master.lag_s;
        const current = this.open.get(key);
        if (current) {
          current.users.add(zone);
          current.closeAt = null;
          if (current.route.self_timed && until > current.commandedUntil) {
            await this.deps.driver.run(current.route, until - now);
            current.commandedUntil = until;
          }
          continue;
        }
        const route = this.routeOf(master.controller_id, master.station, key);
        this.deps.watchdog.release(key);
        await this.deps.driver.run(route, until - now).catch((err: unknown) => {
          throw new DispatchError(
            502,
            'master_unavailable',
            `master "${master.name}" did not open: ${text(err)}`,
          );
        });
        const entry: OpenMaster = {
          name: master.name,
          route,
          lagS: master.lag_s,
          users: new Set([zone]),
          commandedUntil: until,
          closeAt: null,
        };
        this.open.set(key, entry);
        lead = Math.max(lead, master.lead_s);
      }
    } catch (err) {
      // Nothing runs: masters this zone opened or shared are handed back at once.
      this.afterZone(zone, this.deps.now(), 0);
      throw err;
    }
    return lead;
  }

  /** The zone ended at `at`: masters it leaves unused close their lag later (`lagOverride` for a failed start). */
  afterZone(zone: string, at: number, lagOverride?: number): void {
    for (const entry of this.open.values()) {
      if (!entry.users.delete(zone) || entry.users.size > 0) continue;
      entry.closeAt = at + (lagOverride ?? entry.lagS);
    }
  }

  /** Closes the masters whose lag has passed. */
  tick(): void {
    const now = this.deps.now();
    for (const [key, entry] of [...this.open]) {
      if (entry.closeAt === null || now < entry.closeAt) continue;
      this.open.delete(key);
      void this.close(key, entry);
    }
  }

  /** Masters open or waiting for their lag (the dispatcher keeps ticking while any is). */
  busy(): boolean {
    return this.open.size > 0;
  }

  /** stop_all: masters on controllers that stopped are closed; the others close now, through `tick`. */
  afterStopAll(stopped: ReadonlySet<string>): void {
    const now = this.deps.now();
    for (const [key, entry] of [...this.open]) {
      if (stopped.has(entry.route.controller_id)) this.open.delete(key);
      else {
        entry.users.clear();
        entry.closeAt = now;
      }
    }
  }

  private async close(key: string, entry: OpenMaster): Promise<void> {
    try {
      await this.deps.driver.stopZone(entry.route);
    } catch (err) {
      this.deps.logger.error(
        { master: entry.name, err: text(err) },
        'could not close the master; the watchdog retries',
      );
      this.deps.watchdog.arm(key, entry.route, entry.closeAt ?? this.deps.now(), 'closing', 'watchdog', true);
    }
  }

  private routeOf(controllerId: string, station: string, key: string): ZoneRoute {
    const result = this.deps.driver.routeStation?.(controllerId, station, key);
    if (!result)
      throw new DispatchError(400, 'master_unbound', `"${key}": this build cannot reach a master station`);
    if (!result.ok) throw new DispatchError(400, 'master_unbound', result.failure.message);
    return result.route;
  }
}

function text(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
