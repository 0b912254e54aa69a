import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import type {
  AdapterContext,
  ControllerAdapter,
  ControllerKindDefinition,
  ControllerStatus,
  ScannedZone,
  StationState,
} from '../types';

/**
 * `dry_run`: no hardware. It keeps its pretend valves in memory so the zone
 * cards, run, stop and history behave as with a real controller, and the
 * dispatcher records its runs as `dry_run` rows (pretend water, never
 * applied). Demo mode and `DRY_RUN=1` swap every controller for this kind.
 * Like a device that pushes its state, it tells the manager when a pretend
 * valve closes on its own timer: nothing polls it, and the last reading
 * would otherwise say "running" until something else read it.
 */

const configSchema = lazySchema((z) =>
  z.looseObject({
    /** Run zones of this controller concurrently (default: one at a time, like most hardware). */
    concurrent_zones: z.boolean().default(false),
  }),
);
type DryRunConfig = z.output<typeof configSchema>;

/**
 * The block every simulated controller runs with: what the schema makes of
 * `{}` (a simulated controller's own block is never read). The controller
 * manager uses it without parsing, so the demo boots without zod; a test
 * holds it equal to `configSchema.parse({})`.
 */
export function simulatedConfig(): DryRunConfig {
  return { concurrent_zones: false };
}

export class DryRunController implements ControllerAdapter {
  readonly kind = 'dry_run';
  readonly id: string;
  readonly capabilities;
  readonly confirmWithinS = 0;
  readonly pollIntervalMs = null;
  /** Station -> epoch its pretend valve closes. */
  private readonly open = new Map<string, number>();
  /** Station -> the timer that reports its pretend valve closed. */
  private readonly closers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ctx: AdapterContext<DryRunConfig>) {
    this.id = ctx.id;
    this.capabilities = {
      per_zone_stop: true,
      state_readback: true,
      zone_scan: true,
      water_level: false,
      flow: false,
      concurrent_zones: ctx.config.concurrent_zones,
      self_timed: true,
      device_limit: true,
    };
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {
    this.closeAll();
  }

  async runZone(station: string, seconds: number): Promise<void> {
    this.open.set(station, epochSeconds(this.ctx.clock) + seconds);
    this.cancelCloser(station);
    const closer = setTimeout(() => {
      this.closers.delete(station);
      this.ctx.notify();
    }, seconds * 1000);
    closer.unref();
    this.closers.set(station, closer);
  }

  async stopZone(station: string): Promise<'zone'> {
    this.open.delete(station);
    this.cancelCloser(station);
    return 'zone';
  }

  async stopAll(): Promise<void> {
    this.closeAll();
  }

  private closeAll(): void {
    this.open.clear();
    for (const station of [...this.closers.keys()]) this.cancelCloser(station);
  }

  private cancelCloser(station: string): void {
    const closer = this.closers.get(station);
    if (closer) clearTimeout(closer);
    this.closers.delete(station);
  }

  async readStatus(): Promise<ControllerStatus> {
    const now = epochSeconds(this.ctx.clock);
    const stations: Record<string, StationState> = {};
    for (const { station } of this.ctx.stations) stations[station] = { running: false, remaining_s: null };
    for (const [station, until] of this.open) {
      if (until <= now) this.open.delete(station);
      else stations[station] = { running: true, remaining_s: until - now };
    }
    return {
      observed_epoch: now,
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  async scanZones(): Promise<ScannedZone[]> {
    return this.ctx.stations.map(({ zone, station }) => ({ station, name: zone }));
  }
}

export const dryRunKind: ControllerKindDefinition<DryRunConfig> = {
  kind: 'dry_run',
  label: 'Dry run (no hardware)',
  configSchema,
  acceptsAnyZone: true,
  slugIsStation: true,
  create: (ctx) => new DryRunController(ctx),
};
