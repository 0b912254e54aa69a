import type { AppliedConfig } from '../config/config-types';
import type { EventBus } from '../core/bus';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { MemoryControlsBackend } from '../irrigation/controls/controls-store';
import type { HaView, IrrigationService } from '../irrigation/irrigation-service';
import { siteConfigProvider, siteTimezone } from '../location/site';
import type { Store } from '../store/store';
import type { HaAdoption } from './adoption';
import type { HaFacts, HaSiteFacts } from './ha-facts';
import type { HaLink } from './ha-link';

/**
 * The wiring of what the service takes from Home Assistant besides the link
 * itself (main.ts builds one): the connection event on the bus, the location
 * facts and the site config derived from them, the retired-helper adoption,
 * and the views the irrigation snapshot and the routes read. With no link
 * (standalone) every part is inert: no facts, `ha_adoption` [] and
 * `ha_reachable` true (spec 9.6: always true on the native path).
 */

export interface HaSupportDeps {
  link: HaLink | null;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** The stored config (ConfigService.current). */
  config: () => AppliedConfig | null;
  store: Store | null;
}

export class HaSupport {
  /** The config with HA's site fallbacks (location/site.ts): what weather, forecast and irrigation read. */
  readonly siteConfig: () => AppliedConfig | null;
  /** For IrrigationServiceDeps.ha. */
  readonly irrigationView: HaView;
  /** For HttpDeps.ha: the link (null when not configured) and HA's facts. */
  readonly http: { link: HaLink | null; facts: () => HaSiteFacts | null };

  private readonly facts: HaFacts | null;
  private adoption: HaAdoption | null = null;
  private offConnection: (() => void) | null = null;

  constructor(private readonly deps: HaSupportDeps) {
    const link = deps.link;
    this.facts = link ? haFacts({ link, bus: deps.bus, clock: deps.clock, logger: deps.logger }) : null;
    const facts = (): HaSiteFacts | null => this.facts?.current() ?? null;
    this.siteConfig = siteConfigProvider(deps.config, facts);
    this.irrigationView = {
      reachable: () => (link ? link.reachable : true),
      adoption: () => this.adoption?.records() ?? [],
    };
    this.http = { link, facts };
  }

  /** Announces connection changes and reads HA's facts (before the services that use them start). */
  async start(): Promise<void> {
    const link = this.deps.link;
    if (!link) return;
    this.offConnection = link.onConnectionChange((connected) =>
      this.deps.bus.emit('ha.connection', { connected }),
    );
    await this.facts?.start();
  }

  /** Starts the helper adoption over the irrigation service's controls (before the scheduler starts). */
  async startAdoption(irrigation: Pick<IrrigationService, 'controlsState' | 'applyControl'>): Promise<void> {
    const link = this.deps.link;
    if (!link) return;
    const store = this.deps.store;
    // Loaded only with a link: a standalone service never adopts anything.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { HaAdoption } = require('./adoption') as typeof import('./adoption');
    this.adoption = new HaAdoption({
      link,
      controls: {
        state: () => irrigation.controlsState(),
        rows: () => store?.controls.all() ?? {},
        apply: (action) => void irrigation.applyControl(action),
      },
      records: store?.controls ?? new MemoryControlsBackend(),
      bus: this.deps.bus,
      clock: this.deps.clock,
      logger: this.deps.logger,
      config: this.deps.config,
      timezone: () => {
        const applied = this.deps.config();
        return applied ? siteTimezone(applied, this.facts?.current() ?? null) : 'UTC';
      },
      haTimezone: () => this.facts?.current()?.time_zone ?? null,
    });
    await this.adoption.start();
  }

  async stop(): Promise<void> {
    await this.adoption?.stop();
    this.facts?.stop();
    this.offConnection?.();
    this.offConnection = null;
  }
}

/** HA's location facts, loaded only with a link: a standalone service has none to read. */
function haFacts(deps: ConstructorParameters<typeof HaFacts>[0]): HaFacts {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { HaFacts } = require('./ha-facts') as typeof import('./ha-facts');
  return new HaFacts(deps);
}
