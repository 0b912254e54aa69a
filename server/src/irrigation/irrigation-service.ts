import { DateTime } from 'luxon';
import type { AppliedConfig } from '../config/config-types';
import type { EventBus, HaAdoptionEntry } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { zoneFor } from '../core/tz/zone';
import type { ForecastService } from '../forecast/forecast-service';
import { resolveTimezone } from '../location/timezone';
import type { Store } from '../store/store';
import { MERGED_SOURCE_ID, type WeatherService } from '../weather/weather-service';
import type { ControlAction } from './controls/actions';
import type { ControlsState } from './controls/types';
import { ControlsStore, MemoryControlsBackend } from './controls/controls-store';
import type { ZoneRunningState } from './dispatch/driver';
import type { EngineInput, EngineOutput } from './engine/types';
import type { IrrigationSnapshot } from './snapshot-schema';
import type { SoilLedgerService } from './soil/soil-ledger-service';

/**
 * The irrigation domain's module: gathers the engine's inputs (config, the
 * weather and forecast snapshots, run evidence, persisted controls, the
 * clock), runs the pure engine, keeps its latest answer, records the daily
 * decision and each verdict change, and announces `irrigation.snapshot`.
 */

const RUN_EVIDENCE_DAYS = 15;
/** Weather changes every few seconds; the plan does not need to follow faster than this. */
const MIN_RECOMPUTE_INTERVAL_MS = 10_000;
const TICK_MS = 60_000;

export type ComputeIrrigation = (input: EngineInput) => EngineOutput;

/** What the snapshot reports from the controllers (implemented by the controller manager). */
export interface HardwareView {
  zoneStates(): ReadonlyMap<string, ZoneRunningState>;
  restartReasons(): string[];
  hardwareFacts(): Pick<
    IrrigationSnapshot,
    'water_level_pct' | 'water_level_capable' | 'flow_connected' | 'flow'
  >;
}

/** What the snapshot reports of Home Assistant (spec 2.5 `ha_adoption`, 9.6 `ha_reachable`). */
export interface HaView {
  /** The link is up; true when HA is not configured (the native path). */
  reachable(): boolean;
  adoption(): HaAdoptionEntry[];
}

export interface IrrigationServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store | null;
  weather: Pick<WeatherService, 'snapshot' | 'currentWeather'>;
  forecast: Pick<ForecastService, 'snapshot' | 'bias'>;
  compute: ComputeIrrigation;
  /** Null until controllers are wired (tests of the engine alone). */
  hardware?: HardwareView | null;
  /** Null or absent: standalone (`ha_adoption` [], `ha_reachable` true). */
  ha?: HaView | null;
  /** The persisted soil ledger; null or absent without a database (the engine replays in memory). */
  soil?: Pick<SoilLedgerService, 'current'> | null;
}

/** Parts of the input a simulation may replace. */
export type Scenario = Partial<Pick<EngineInput, 'nowEpoch' | 'weather' | 'forecast' | 'controls' | 'runs'>>;

export class IrrigationService implements Module {
  readonly name = 'irrigation';
  private readonly log: Logger;
  private readonly controls: ControlsStore;
  private latest: EngineOutput | null = null;
  private lastVerdict: string | null = null;
  private lastComputeMs = 0;
  private pending: NodeJS.Timeout | null = null;
  private tick: NodeJS.Timeout | null = null;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: IrrigationServiceDeps) {
    this.log = deps.logger.child({ module: 'irrigation' });
    this.controls = new ControlsStore(deps.store?.controls ?? new MemoryControlsBackend(), () =>
      this.timezone(),
    );
  }

  async start(): Promise<void> {
    this.unsubscribers.push(this.deps.bus.on('weather.snapshot', () => this.schedule()));
    this.unsubscribers.push(this.deps.bus.on('controller.status', () => this.schedule()));
    // A run starting or ending changes the zone cards and the ledger: show it at once.
    this.unsubscribers.push(this.deps.bus.on('runs.changed', () => this.recompute()));
    // A saved config (the user's change) and a new forecast (every 30 minutes, and the
    // first one right after boot) are rare: the snapshot reflects them at once.
    this.unsubscribers.push(this.deps.bus.on('config.changed', () => this.recompute()));
    this.unsubscribers.push(this.deps.bus.on('forecast.snapshot', () => this.recompute()));
    // The weather record's start-up backfill gives the soil ledger its past.
    this.unsubscribers.push(this.deps.bus.on('weather.record', () => this.recompute()));
    // Home Assistant: link up/down (`ha_reachable`), adoption records, its site facts (time zone).
    for (const event of ['ha.connection', 'ha.adoption', 'ha.facts'] as const) {
      this.unsubscribers.push(this.deps.bus.on(event, () => this.recompute()));
    }
    this.recompute();
    this.tick = setInterval(() => this.schedule(), TICK_MS);
    this.tick.unref();
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribers.splice(0)) off();
    if (this.pending) clearTimeout(this.pending);
    if (this.tick) clearInterval(this.tick);
  }

  /** The latest irrigation snapshot; null before a config exists. */
  snapshot(): IrrigationSnapshot | null {
    if (!this.latest) this.recompute();
    return this.latest?.snapshot ?? null;
  }

  latestOutput(): EngineOutput | null {
    if (!this.latest) this.recompute();
    return this.latest;
  }

  /** The engine on a supplied scenario: nothing is stored, announced or dispatched. */
  simulate(scenario: Scenario): EngineOutput | null {
    const input = this.gather();
    return input ? this.deps.compute({ ...input, ...scenario }) : null;
  }

  /** Recomputes now (a declared soil state, a season replay's simulated clock) and returns the snapshot. */
  refresh(): IrrigationSnapshot | null {
    this.recompute();
    return this.latest?.snapshot ?? null;
  }

  /** Applies a control action (persisted when a database is mounted) and recomputes at once. */
  applyControl(action: ControlAction): IrrigationSnapshot | null {
    this.controls.apply(action, epochSeconds(this.deps.clock));
    this.recompute();
    return this.latest?.snapshot ?? null;
  }

  /** The persisted controls as the engine reads them (pause, overrides, thresholds). */
  controlsState(): ControlsState {
    return this.controls.load();
  }

  zoneSlugs(): string[] {
    return Object.keys(this.deps.config()?.config.zones ?? {});
  }

  /** Coalesces triggers: at most one recompute per interval. */
  private schedule(): void {
    if (this.pending) return;
    const wait = Math.max(0, this.lastComputeMs + MIN_RECOMPUTE_INTERVAL_MS - this.deps.clock.nowMs());
    this.pending = setTimeout(() => {
      this.pending = null;
      this.recompute();
    }, wait);
    this.pending.unref();
  }

  private recompute(): void {
    const input = this.gather();
    this.lastComputeMs = this.deps.clock.nowMs();
    if (!input) {
      this.latest = null;
      return;
    }
    try {
      const output = this.withHardware(this.deps.compute(input));
      this.latest = output;
      this.record(output);
      this.deps.bus.emit('irrigation.snapshot', output.snapshot);
    } catch (err) {
      this.log.error({ err }, 'the irrigation engine failed; keeping the previous answer');
    }
  }

  private gather(): EngineInput | null {
    const applied = this.deps.config();
    if (!applied) return null;
    const nowEpoch = epochSeconds(this.deps.clock);
    const timezone = this.timezone();
    const bias = this.deps.forecast.bias();
    return {
      nowEpoch,
      config: applied.config,
      timezone,
      weather: this.deps.weather.snapshot(),
      currentWeather: this.deps.weather.currentWeather(),
      forecast: this.deps.forecast.snapshot(),
      bias: { multiplier: bias.multiplier, sample_count: bias.sample_count, trained: bias.trained },
      runs: this.deps.store?.runs.listWindow(nowEpoch - RUN_EVIDENCE_DAYS * 86400, nowEpoch) ?? [],
      gaugeDailyRain: this.gaugeDailyRain(nowEpoch, timezone),
      controls: this.controls.load(),
      ...(this.deps.soil ? { soil: this.deps.soil.current(nowEpoch) } : {}),
      controlsPersisted: this.deps.store !== null,
      ...(this.deps.hardware ? { zoneRunning: this.deps.hardware.zoneStates() } : {}),
    };
  }

  /** The controllers' own facts: restart hold, water level, flow; and Home Assistant's. */
  private withHardware(output: EngineOutput): EngineOutput {
    const ha = this.deps.ha;
    if (ha) Object.assign(output.snapshot, { ha_reachable: ha.reachable(), ha_adoption: ha.adoption() });
    const hardware = this.deps.hardware;
    if (!hardware) return output;
    const reasons = hardware.restartReasons();
    Object.assign(output.snapshot, hardware.hardwareFacts(), {
      restart_required: reasons.length > 0,
      restart_reasons: reasons,
    });
    return output;
  }

  /** The station's daily totals: the largest merged `rain_in_today` of each local day it measured. */
  private gaugeDailyRain(nowEpoch: number, timezone: string): Map<string, number> {
    const totals = new Map<string, number>();
    const store = this.deps.store;
    if (!store) return totals;
    const zone = zoneFor(timezone);
    for (const row of store.readings.listRecent(nowEpoch, RUN_EVIDENCE_DAYS * 24, 'rain_in_today')) {
      if (row.source_id !== MERGED_SOURCE_ID) continue;
      const day = DateTime.fromSeconds(row.epoch, { zone }).toISODate() ?? '';
      totals.set(day, Math.max(totals.get(day) ?? 0, row.value));
    }
    return totals;
  }

  /** The daily decision (upserted per day) and a transition record when the verdict changed. */
  private record(output: EngineOutput): void {
    const store = this.deps.store;
    if (!store) return;
    try {
      store.decisions.upsertDaily(output.decision);
      if (output.verdict !== this.lastVerdict) {
        store.decisions.insertTransition({
          epoch: output.decision.epoch,
          verdict: output.verdict,
          previous_verdict: this.lastVerdict,
          reason: { reason_code: reasonCodeOf(output.snapshot) },
        });
        this.lastVerdict = output.verdict;
      }
    } catch (err) {
      this.log.warn({ err }, 'could not record the irrigation decision');
    }
  }

  /** The deployment's IANA zone (configured, else from the location). */
  timezone(): string {
    const applied = this.deps.config();
    if (!applied) return 'UTC';
    const { location, timezone } = applied.config.deployment;
    return resolveTimezone(timezone ?? null, location.lat, location.lon);
  }
}

function reasonCodeOf(snapshot: IrrigationSnapshot): string | null {
  const code = (snapshot.skip_check as { reason_code?: unknown }).reason_code;
  return typeof code === 'string' ? code : null;
}
