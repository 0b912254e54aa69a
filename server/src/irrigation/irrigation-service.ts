import { SKILL_LOOKBACK_DAYS } from './policy/forecast-policy';
import type { AppliedConfig } from '../config/config-types';
import type { EventBus, HaAdoptionEntry } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { ForecastService } from '../forecast/forecast-service';
import { resolveTimezone } from '../location/timezone';
import type { Store } from '../store/store';
import { MERGED_SOURCE_ID, type WeatherService } from '../weather/weather-service';
import type { ControlAction } from './controls/actions';
import type { ControlsState } from './controls/types';
import { ControlsStore, MemoryControlsBackend } from './controls/controls-store';
import { DailyDecisionWriter } from './daily-decision-writer';
import type { ZoneRunningState } from './dispatch/driver';
import type { EngineInput, EngineOutput } from './engine/types';
import { computeGuarded, type DegradedControl, type GuardedOutput } from './guarded-compute';
import type { IrrigationSnapshot } from './snapshot-schema';
import type { SoilLedgerService } from './soil/soil-ledger-service';
import type { ProbeReader } from './soil/probe-reader';

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
  /** Real controllers with no device-side limit: only Raincheck closes their valves. */
  softwareFailsafeControllers(): string[];
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

/** The flow monitor's view of metered water (irrigation/flow): the snapshot's `flow` extras. */
export interface FlowView {
  snapshotFlow(base: IrrigationSnapshot['flow']): { connected: boolean; flow: Record<string, unknown> };
}

export interface IrrigationServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store | null;
  weather: Pick<WeatherService, 'snapshot' | 'currentWeather'>;
  forecast: Pick<ForecastService, 'snapshot' | 'bias'> & Partial<Pick<ForecastService, 'skill'>>;
  compute: ComputeIrrigation;
  /** Null until controllers are wired (tests of the engine alone). */
  hardware?: HardwareView | null;
  /** Null or absent: standalone (`ha_adoption` [], `ha_reachable` true). */
  ha?: HaView | null;
  /** Null or absent: no flow monitor (the controllers' own flow fields only). */
  flow?: FlowView | null;
  /** The persisted soil ledger; null or absent without a database (the engine replays in memory). */
  soil?: Pick<SoilLedgerService, 'current'> | null;
  /** The bound soil probes' evidence (soil/probe-reader.ts); null or absent: no probe evidence. */
  probes?: Pick<ProbeReader, 'evidence'> | null;
}

/** Parts of the input a simulation may replace. */
export type Scenario = Partial<Pick<EngineInput, 'nowEpoch' | 'weather' | 'forecast' | 'controls' | 'runs'>>;

export class IrrigationService implements Module {
  readonly name = 'irrigation';
  private readonly log: Logger;
  private readonly controls: ControlsStore;
  private latest: EngineOutput | null = null;
  /** Controls the last computation had to degrade, and the engine's error when nothing computed. */
  private degraded: DegradedControl[] = [];
  private failure: string | null = null;
  private usedControls: ControlsState | null = null;
  /** The verdict last recorded; undefined until read back from the store (a restart is no change). */
  private lastVerdict: string | null | undefined = undefined;
  /** Null without a database. */
  private readonly daily: DailyDecisionWriter | null;
  private lastComputeMs = 0;
  private pending: NodeJS.Timeout | null = null;
  private tick: NodeJS.Timeout | null = null;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: IrrigationServiceDeps) {
    this.log = deps.logger.child({ module: 'irrigation' });
    this.controls = new ControlsStore(deps.store?.controls ?? new MemoryControlsBackend(), () =>
      this.timezone(),
    );
    this.daily = deps.store ? new DailyDecisionWriter(deps.store.decisions) : null;
  }

  async start(): Promise<void> {
    this.unsubscribers.push(this.deps.bus.on('weather.snapshot', () => this.schedule()));
    this.unsubscribers.push(this.deps.bus.on('controller.status', () => this.schedule()));
    // A failed reading turns zones to running_known false: show it without waiting for the next tick.
    this.unsubscribers.push(this.deps.bus.on('controller.failure', () => this.schedule()));
    this.unsubscribers.push(this.deps.bus.on('flow.alarm', () => this.recompute()));
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

  /**
   * The engine on a supplied scenario: nothing is stored, announced or
   * dispatched. Null before a config exists; `output` null when the engine
   * cannot compute the scenario (the error says why).
   */
  simulate(scenario: Scenario): GuardedOutput | null {
    const input = this.gather();
    return input ? computeGuarded(this.deps.compute, { ...input, ...scenario }) : null;
  }

  /**
   * Health `engine`: ok while it computes from every stored input; degraded
   * when a stored control had to be set aside (naming it) or nothing computed.
   */
  engineHealth(): { status: 'ok' | 'degraded' | 'disabled'; note: string | null } {
    if (!this.deps.config()) return { status: 'disabled', note: 'no config yet' };
    if (!this.latestOutput()) {
      const why = this.failure ? `: ${this.failure}` : '';
      return { status: 'degraded', note: `the irrigation engine has no answer${why}` };
    }
    if (this.degraded.length === 0) return { status: 'ok', note: null };
    const which = this.degraded.map((d) => `${d.control} (uses ${d.used})`).join(', ');
    return {
      status: 'degraded',
      note: `a stored control made the engine fail (${this.degraded[0]?.error}); set aside until changed: ${which}`,
    };
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

  /** The persisted controls as the engine applies them (pause, overrides, thresholds; a degraded one as used). */
  controlsState(): ControlsState {
    return this.degraded.length > 0 && this.usedControls ? this.usedControls : this.controls.load();
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
    const guarded = computeGuarded(this.deps.compute, input);
    this.reportDegradation(guarded);
    if (!guarded.output) return;
    try {
      const output = this.withHardware(guarded.output);
      this.latest = output;
      this.usedControls = guarded.controls;
      this.record(output);
      this.deps.bus.emit('irrigation.snapshot', output.snapshot);
    } catch (err) {
      this.log.error({ err }, 'the irrigation snapshot could not be completed; keeping the previous answer');
    }
  }

  /** Logs a change in what the engine could not use (not every recompute). */
  private reportDegradation(guarded: GuardedOutput): void {
    const before = JSON.stringify([this.degraded, this.failure]);
    this.degraded = guarded.degraded;
    this.failure = guarded.output ? null : guarded.error;
    if (JSON.stringify([this.degraded, this.failure]) === before) return;
    if (!guarded.output)
      this.log.error({ error: guarded.error }, 'the irrigation engine failed; keeping the previous answer');
    else if (guarded.degraded.length > 0) {
      this.log.error(
        { degraded: guarded.degraded },
        'a stored control made the engine fail; it is set aside until changed',
      );
    } else this.log.info('the irrigation engine computes from every stored input again');
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
      ...(this.deps.forecast.skill ? { archiveSkill: this.deps.forecast.skill() } : {}),
      runs: this.deps.store?.runs.listWindow(nowEpoch - RUN_EVIDENCE_DAYS * 86400, nowEpoch) ?? [],
      gaugeDailyRain: this.gaugeDailyRain(nowEpoch, timezone),
      controls: this.controls.load(),
      ...(this.deps.soil ? { soil: this.deps.soil.current(nowEpoch) } : {}),
      ...(this.deps.probes ? { probes: this.deps.probes.evidence(applied.config, nowEpoch) } : {}),
      recentDecisions: this.recentDecisions(nowEpoch, timezone),
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
    const facts = hardware.hardwareFacts();
    const metered = this.deps.flow?.snapshotFlow(facts.flow);
    Object.assign(output.snapshot, facts, {
      restart_required: reasons.length > 0,
      restart_reasons: reasons,
      software_failsafe_controllers: hardware.softwareFailsafeControllers(),
      ...(metered ? { flow: metered.flow, flow_connected: facts.flow_connected || metered.connected } : {}),
    });
    return output;
  }

  /**
   * The recorded decisions of the engine's skill lookback (recordedPromises: the decision of
   * day D promised D+1's rain), by local date: a row's epoch is when its decision was
   * reached (daily-decision-writer.ts), any time of its day, so an epoch window would drop
   * the oldest day for part of each day.
   */
  private recentDecisions(nowEpoch: number, timezone: string): EngineInput['recentDecisions'] {
    const store = this.deps.store;
    const now = LocalTime.fromSeconds(nowEpoch, timeZone(timezone));
    const today = now.isoDate;
    const from = now.plus({ days: -(SKILL_LOOKBACK_DAYS + 1) }).isoDate;
    // An unsupported zone gives no dates (as in gaugeDailyRain): the engine says why it cannot compute.
    if (!store || today === null || from === null) return [];
    return store.decisions.listDailyDates(from, today);
  }

  /** The station's daily totals: the largest merged `rain_in_today` of each local day it measured. */
  private gaugeDailyRain(nowEpoch: number, timezone: string): Map<string, number> {
    const totals = new Map<string, number>();
    const store = this.deps.store;
    if (!store) return totals;
    const zone = timeZone(timezone);
    for (const row of store.readings.listRecent(nowEpoch, RUN_EVIDENCE_DAYS * 24, 'rain_in_today')) {
      if (row.source_id !== MERGED_SOURCE_ID) continue;
      const day = LocalTime.fromSeconds(row.epoch, zone).isoDate ?? '';
      totals.set(day, Math.max(totals.get(day) ?? 0, row.value));
    }
    return totals;
  }

  /** The daily decision (written when it changed) and a transition record when the verdict changed. */
  private record(output: EngineOutput): void {
    const store = this.deps.store;
    if (!store) return;
    try {
      this.daily?.record(output.decision);
      if (this.lastVerdict === undefined)
        this.lastVerdict = store.decisions.latestTransition()?.verdict ?? null;
      if (output.verdict !== this.lastVerdict) {
        store.decisions.insertTransition({
          epoch: output.decision.epoch,
          verdict: output.verdict,
          previous_verdict: this.lastVerdict,
          reason: { ...output.verdictReason },
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
