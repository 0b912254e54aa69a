import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { timeZone } from '../core/tz/time-zone';
import type { SiteFacts } from '../location/site';
import type { HaConfig, HaLink } from './ha-link';

/**
 * What Home Assistant knows about where it is (`get_config`: latitude,
 * longitude, elevation, time_zone), read once per connection and kept for
 * the life of the process (a dropped link keeps the last answer). The
 * deployment uses them only to fill what its own config leaves unset
 * (location/site.ts, docs/ha.md). Imports the link as a type only: a
 * standalone install never loads the websocket client.
 */

/** HA's location facts (the shape location/site.ts takes as its fallbacks). */
export type HaSiteFacts = SiteFacts;

/** How long boot waits for the first get_config before carrying on (the read continues). */
export const BOOT_READ_WAIT_MS = 5_000;

export interface HaFactsDeps {
  link: Pick<HaLink, 'reachable' | 'getConfig' | 'onConnectionChange'>;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
}

export class HaFacts {
  private readonly log: Logger;
  private facts: HaSiteFacts | null = null;
  private offConnection: (() => void) | null = null;
  private reading: Promise<void> | null = null;

  constructor(private readonly deps: HaFactsDeps) {
    this.log = deps.logger.child({ module: 'ha.facts' });
  }

  /** Reads at once when the link is up (waiting at most BOOT_READ_WAIT_MS), then after every (re)connect. */
  async start(): Promise<void> {
    this.offConnection = this.deps.link.onConnectionChange((connected) => {
      if (connected) void this.read();
    });
    if (this.deps.link.reachable) await waitAtMost(this.read(), BOOT_READ_WAIT_MS);
  }

  stop(): void {
    this.offConnection?.();
    this.offConnection = null;
  }

  /** The last facts read; null before the first successful get_config. */
  current(): HaSiteFacts | null {
    return this.facts;
  }

  /** One get_config; concurrent calls share it. Emits `ha.facts` when the facts changed. */
  read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    let config: HaConfig;
    try {
      config = await this.deps.link.getConfig();
    } catch (err) {
      this.log.warn({ reason: (err as Error).message }, 'could not read the Home Assistant config');
      return;
    }
    const next = siteFactsOf(config, epochSeconds(this.deps.clock));
    // Unchanged facts keep their object: the site config derived from them stays the same value.
    if (sameFacts(this.facts, next)) return;
    this.facts = next;
    this.log.info(
      {
        latitude: next.latitude,
        longitude: next.longitude,
        elevation_m: next.elevation_m,
        time_zone: next.time_zone,
      },
      'Home Assistant location facts read',
    );
    this.deps.bus.emit('ha.facts', next);
  }
}

/** The facts of a get_config answer; values that are missing or malformed read as null. Pure. */
export function siteFactsOf(
  config: Partial<HaConfig> | Record<string, unknown>,
  readEpoch: number,
): HaSiteFacts {
  const raw = config as Record<string, unknown>;
  const lat = finite(raw.latitude);
  const lon = finite(raw.longitude);
  const tz = typeof raw.time_zone === 'string' ? raw.time_zone.trim() : '';
  return {
    latitude: lat !== null && Math.abs(lat) <= 90 ? lat : null,
    longitude: lon !== null && Math.abs(lon) <= 180 ? lon : null,
    elevation_m: finite(raw.elevation),
    time_zone: tz !== '' && timeZone(tz).isValid ? tz : null,
    read_epoch: readEpoch,
  };
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function sameFacts(a: HaSiteFacts | null, b: HaSiteFacts): boolean {
  return (
    a !== null &&
    a.latitude === b.latitude &&
    a.longitude === b.longitude &&
    a.elevation_m === b.elevation_m &&
    a.time_zone === b.time_zone
  );
}

/** Awaits `promise`, but no longer than `ms` (it carries on in the background). */
export async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
