import type { AppliedConfig } from '../../config/config-types';
import { zoneMeter, type MeterBinding } from '../../config/flow-meter-binding';
import type { ControllerStatusEvent, EventBus, FlowReadingEvent } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Module } from '../../core/lifecycle';
import { unitSystemOf, wording, type Wording } from '../../core/units/quantities';
import type { Logger } from '../../core/logger';
import type { FlowAlarm, FlowAlarmsRepository } from '../../store/flow-alarms';
import type { RunsRepository } from '../../store/runs';
import type { ActiveRun, RunMeter } from '../dispatch/dispatcher';
import type { MeteredWater } from '../dispatch/water-amount';
import { baselineOf, judgeFlow, MIN_BASELINE_RUNS } from './flow-judge';
import { meteredWater, rateAt, type MeterSample } from './metered-water';

/**
 * Metered water and the learnt flow baseline (issue 17). Takes every
 * `flow.reading` (controllers/flow-meters), keeps each meter's recent
 * readings, and:
 *
 * - measures a run's volume and mean flow for the run ledger (RunMeter: the
 *   dispatcher's and observer's rows become `metered`);
 * - learns each zone's normal flow: the median mean flow of its last
 *   `baseline_runs` metered runs (store/runs.ts recentMeanFlows);
 * - judges the flow of our open runs once `settle_s` has passed
 *   (flow-judge.ts): `high`, `low` or `none`, once per kind per watering job,
 *   stored (store/flow-alarms.ts, what the anomaly detectors read) and
 *   announced as `flow.alarm`; above `leak_stop_factor` the zone is stopped.
 *
 * A meter bound to a controller measures its zones only while one zone is
 * open there; readings taken while two were open belong to neither.
 */

/** Readings kept per meter (at most this long ago). */
const KEEP_S = 6 * 3600;
/** Alarms the snapshot shows. */
const SNAPSHOT_ALARMS_S = 24 * 3600;

interface Sample extends MeterSample {
  /** Zones open on the meter's controller at this reading (shared meters). */
  openZones: string[];
}

export interface FlowMonitorDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  runs: RunsRepository | null;
  alarms: FlowAlarmsRepository | null;
  activeRuns: () => ReadonlyMap<string, ActiveRun>;
  /** Closes a zone (the dispatcher's stop) when a leak passes its stop factor. */
  stopZone: (zone: string, reason: string) => Promise<unknown>;
}

/** Per zone, for the snapshot's `flow.zones`. */
export interface ZoneFlow {
  zone: string;
  meter: string;
  source_id: string | null;
  baseline_gpm: number | null;
  baseline_runs: number;
  learning: boolean;
  rate_gpm: number | null;
  alarm: Pick<FlowAlarm, 'kind' | 'epoch' | 'rate_gpm' | 'baseline_gpm' | 'stopped' | 'note'> | null;
}

export class FlowMonitor implements Module, RunMeter {
  readonly name = 'flow';
  private readonly log: Logger;
  private readonly samples = new Map<string, Sample[]>();
  private readonly sources = new Map<string, string>();
  /** Zones each controller reported open at its last reading. */
  private readonly openByController = new Map<string, Set<string>>();
  /** `<session>:<kind>` already announced. */
  private readonly announced = new Set<string>();
  /** When each zone's latest judged run began: an alarm before it is over. */
  private readonly lastRunStart = new Map<string, number>();
  private latest: FlowReadingEvent | null = null;
  private latestRate: FlowReadingEvent | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: FlowMonitorDeps) {
    this.log = deps.logger.child({ module: 'flow' });
  }

  async start(): Promise<void> {
    this.offs.push(this.deps.bus.on('flow.reading', (event) => this.onReading(event)));
    this.offs.push(this.deps.bus.on('controller.status', (event) => this.onStatus(event)));
  }

  async stop(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
  }

  /** RunMeter: the run's metered water, or null when no meter (or no clear reading) covers it. */
  measure(zone: string, _controllerId: string, from: number, to: number): MeteredWater | null {
    const binding = this.bindingOf(zone);
    if (!binding) return null;
    const samples = this.samples.get(binding.key) ?? [];
    if (binding.shared && samples.some((s) => s.epoch > from && s.epoch < to && sharedWith(s, zone)))
      return null;
    return meteredWater(samples, from, to);
  }

  /** The zone's learnt baseline (gal/min) and how many runs it rests on. */
  baseline(zone: string): { gpm: number | null; runs: number } {
    const binding = this.bindingOf(zone);
    if (!binding || !this.deps.runs) return { gpm: null, runs: 0 };
    const flows = this.deps.runs.recentMeanFlows(zone, binding.meter.baseline_runs);
    const gpm = baselineOf(flows);
    return { gpm: gpm === null ? null : Math.round(gpm * 100) / 100, runs: flows.length };
  }

  /** The snapshot's `flow` object: the spec's four fields plus `zones` and `alarms` (extras). */
  snapshotFlow(base: {
    rate_gpm: number | null;
    rate_source_id: string | null;
    total_gal_today: number | null;
    total_source_id: string | null;
  }): { connected: boolean; flow: Record<string, unknown> } {
    const rate = this.latestRate;
    return {
      connected: this.latest !== null,
      flow: {
        ...base,
        ...(rate ? { rate_gpm: round(rate.rate_gpm as number, 3), rate_source_id: rate.source_id } : {}),
        zones: this.zoneFlows(),
        alarms: this.recentAlarms(),
      },
    };
  }

  private zoneFlows(): ZoneFlow[] {
    const config = this.deps.config()?.config;
    if (!config) return [];
    const alarms = this.recentAlarms();
    const active = this.deps.activeRuns();
    return Object.keys(config.zones).flatMap((zone) => {
      const binding = zoneMeter(config, zone);
      if (!binding) return [];
      const { gpm, runs } = this.baseline(zone);
      const latest = [...alarms].reverse().find((a) => a.zone === zone) ?? null;
      // A later run of the zone that raised nothing clears it.
      const last = latest && latest.epoch >= (this.lastRunStart.get(zone) ?? 0) ? latest : null;
      const samples = this.samples.get(binding.key) ?? [];
      const live = active.has(zone) ? rateAt(samples, samples.length - 1) : null;
      return [
        {
          zone,
          meter: binding.key,
          source_id: this.sources.get(binding.key) ?? null,
          baseline_gpm: gpm,
          baseline_runs: runs,
          learning: runs < MIN_BASELINE_RUNS,
          rate_gpm: live === null ? null : round(live, 3),
          alarm: last
            ? {
                kind: last.kind,
                epoch: last.epoch,
                rate_gpm: last.rate_gpm,
                baseline_gpm: last.baseline_gpm,
                stopped: last.stopped,
                note: last.note,
              }
            : null,
        },
      ];
    });
  }

  private recentAlarms(): FlowAlarm[] {
    const since = epochSeconds(this.deps.clock) - SNAPSHOT_ALARMS_S;
    return this.deps.alarms?.listSince(since) ?? [];
  }

  private onStatus(event: ControllerStatusEvent): void {
    if (event.simulated) return;
    const open = Object.entries(event.zones)
      .filter(([, state]) => state.running)
      .map(([zone]) => zone);
    this.openByController.set(event.controller_id, new Set(open));
  }

  private onReading(event: FlowReadingEvent): void {
    this.latest = event;
    if (event.rate_gpm !== null) this.latestRate = event;
    this.sources.set(event.meter, event.source_id);
    const list = this.samples.get(event.meter) ?? [];
    const controllerId = event.meter.startsWith('controller:')
      ? event.meter.slice('controller:'.length)
      : null;
    list.push({
      epoch: event.epoch,
      rate_gpm: event.rate_gpm,
      total_gal: event.total_gal,
      openZones: controllerId ? this.openZonesOn(controllerId) : [],
    });
    while (list.length > 0 && (list[0] as Sample).epoch < event.epoch - KEEP_S) list.shift();
    this.samples.set(event.meter, list);
    this.judgeOpenRuns(event.meter, list);
  }

  /** Zones open on a controller: its last reading's, and our runs on it. */
  private openZonesOn(controllerId: string): string[] {
    const zones = new Set(this.openByController.get(controllerId) ?? []);
    for (const run of this.deps.activeRuns().values()) {
      if (run.route.controller_id === controllerId) zones.add(run.zone);
    }
    return [...zones];
  }

  private judgeOpenRuns(meterKey: string, samples: Sample[]): void {
    const now = epochSeconds(this.deps.clock);
    const rate = rateAt(samples, samples.length - 1);
    if (rate === null) return;
    const last = samples[samples.length - 1] as Sample;
    for (const run of this.deps.activeRuns().values()) {
      const binding = this.bindingOf(run.zone);
      if (!binding || binding.key !== meterKey || run.route.simulated) continue;
      if (binding.shared && sharedWith(last, run.zone)) continue;
      if (now - run.startEpoch < binding.meter.settle_s) continue;
      this.lastRunStart.set(run.zone, run.startEpoch);
      this.judge(run, binding, rate, now);
    }
  }

  private judge(run: ActiveRun, binding: MeterBinding, rate: number, now: number): void {
    const { gpm: baseline } = this.baseline(run.zone);
    const verdict = judgeFlow(rate, baseline, binding.meter);
    if (!verdict) return;
    const once = `${run.sessionId}:${verdict.kind}`;
    if (this.announced.has(once)) return;
    this.announced.add(once);
    const alarm: FlowAlarm = {
      epoch: now,
      zone: run.zone,
      controller_id: run.route.controller_id,
      kind: verdict.kind,
      rate_gpm: round(rate, 3),
      baseline_gpm: baseline,
      stopped: verdict.stop,
      session_id: run.sessionId,
      note: alarmNote(verdict.kind, rate, baseline, verdict.stop, this.wording()),
    };
    this.record(alarm);
    if (verdict.stop) {
      this.deps.stopZone(run.zone, `stopped by a flow alarm: ${alarm.note}`).catch((err: unknown) => {
        this.log.error({ zone: run.zone, err: String(err) }, 'could not stop a zone with a leak');
      });
    }
  }

  private record(alarm: FlowAlarm): void {
    this.log.warn(
      { zone: alarm.zone, kind: alarm.kind, rate: alarm.rate_gpm, baseline: alarm.baseline_gpm },
      'flow alarm',
    );
    try {
      this.deps.alarms?.insert(alarm);
    } catch (err) {
      this.log.warn({ err: String(err) }, 'could not store a flow alarm');
    }
    this.deps.bus.emit('flow.alarm', {
      zone: alarm.zone,
      controller_id: alarm.controller_id,
      kind: alarm.kind,
      rate_gpm: alarm.rate_gpm,
      baseline_gpm: alarm.baseline_gpm,
      stopped: alarm.stopped,
      epoch: alarm.epoch,
    });
  }

  /** Alarm notes are sentences: their flows in the owner's units. */
  private wording(): Wording {
    return wording(unitSystemOf(this.deps.config()?.config.deployment.units));
  }

  private bindingOf(zone: string): MeterBinding | null {
    const config = this.deps.config()?.config;
    return config ? zoneMeter(config, zone) : null;
  }
}

/** A shared meter's reading taken while another zone was open there too. */
function sharedWith(sample: Sample, zone: string): boolean {
  return sample.openZones.some((other) => other !== zone);
}

function alarmNote(
  kind: 'high' | 'low' | 'none',
  rate: number,
  baseline: number | null,
  stopped: boolean,
  say: Wording,
): string {
  const flow = say.q('flow_gpm', rate);
  if (kind === 'none') return `no flow (${flow}) with the valve open: it did not open, or the supply is off`;
  const times = baseline ? ` (${round(rate / baseline, 2)}x its usual ${say.q('flow_gpm', baseline)})` : '';
  if (kind === 'high') {
    return `high flow ${flow}${times}: a leak or a broken head${stopped ? '; the zone was stopped' : ''}`;
  }
  return `low flow ${flow}${times}: a clog or low pressure`;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
