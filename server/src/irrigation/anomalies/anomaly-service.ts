import type { EventBus, FlowAlarmEvent } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import type { AnnouncementsRepository } from '../../store/announcements';
import type { Anomaly, AnomalyEvidence, ControllerFailure, Detector } from './anomaly';
import type { HeardEvidence } from './evidence-source';

/**
 * GET /irrigation/anomalies and `anomaly.new` (spec 4.4, 8: cached one hour,
 * `llm.anomaly_ttl_s` when set). Runs every detector over the evidence at
 * most once per TTL (on request, and on a timer so announcements go out when
 * nobody is looking), and announces each anomaly once while it persists:
 * its `type` + `subject` is kept as announced (in the database when there is
 * one, so a restart does not repeat it) and forgotten when it clears, so a
 * recurrence is announced again.
 */

const KEY_PREFIX = 'anomaly:';
const DEFAULT_TTL_S = 3600;
/** Bus memory: failures of a week, flow alarms of a day, at most this many each. */
const HEARD_LIMIT = 500;
const FAILURE_WINDOW_S = 7 * 86_400;
const FLOW_WINDOW_S = 86_400;
/** The first evaluation waits until boot has settled. */
const FIRST_CHECK_MS = 5 * 60_000;

export interface AnomalyList {
  generated_epoch: number;
  anomalies: Anomaly[];
}

type Announced = Pick<AnnouncementsRepository, 'withPrefix' | 'touch' | 'remove'>;

export interface AnomalyServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** The evidence now; null before a config exists (nothing to judge). */
  gather: (nowEpoch: number, heard: HeardEvidence) => AnomalyEvidence | null;
  /** `llm.anomaly_ttl_s` when configured, else one hour. */
  ttlS?: () => number | null;
  /** Where announced keys persist; null keeps them in memory. */
  announced: Announced | null;
  /**
   * Flow alarms from their owner (issue 17) when it keeps them; absent: the
   * `flow.alarm` announcements heard since start.
   */
  flowAlarms?: (nowEpoch: number) => readonly FlowAlarmEvent[] | null;
  detectors?: readonly Detector[];
}

export class AnomalyService implements Module {
  readonly name = 'anomalies';
  private readonly log: Logger;
  private cache: AnomalyList | null = null;
  private failures: ControllerFailure[] = [];
  private flows: FlowAlarmEvent[] = [];
  private heardFlow = false;
  private restartSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly memory = new Map<string, number>();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: AnomalyServiceDeps) {
    this.log = deps.logger.child({ module: 'anomalies' });
  }

  async start(): Promise<void> {
    const { bus } = this.deps;
    this.unsubscribers.push(
      bus.on('controller.failure', (f) =>
        push(this.failures, {
          controller_id: f.controller_id,
          epoch: f.epoch,
          message: `${f.code}: ${f.message}`,
        }),
      ),
      bus.on('flow.alarm', (alarm) => {
        this.heardFlow = true;
        push(this.flows, alarm);
      }),
      bus.on('irrigation.snapshot', (snapshot) => this.noteRestart(snapshot.restart_required === true)),
    );
    this.timer = setTimeout(() => this.tick(), FIRST_CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribers.splice(0)) off();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The anomalies now, from the cache while it is younger than the TTL. */
  list(): AnomalyList {
    const now = epochSeconds(this.deps.clock);
    if (this.cache && now - this.cache.generated_epoch < this.ttl()) return this.cache;
    return this.evaluate();
  }

  /** Runs the detectors, announces what is new, forgets what cleared. Public for tests. */
  evaluate(): AnomalyList {
    const now = epochSeconds(this.deps.clock);
    const evidence = this.deps.gather(now, this.heard(now));
    const anomalies = evidence ? this.detect(evidence) : [];
    this.announce(anomalies, now);
    this.cache = { generated_epoch: now, anomalies };
    return this.cache;
  }

  private detect(evidence: AnomalyEvidence): Anomaly[] {
    return (this.deps.detectors ?? loadDetectors()).flatMap((detector) => {
      try {
        return detector.detect(evidence);
      } catch (err) {
        // One detector's bug must not hide the others' findings.
        this.log.error({ err, detector: detector.type }, 'anomaly detector failed');
        return [];
      }
    });
  }

  private announce(anomalies: readonly Anomaly[], now: number): void {
    const current = new Map(anomalies.map((a) => [`${KEY_PREFIX}${a.type}:${a.subject}`, a]));
    const known = new Set(this.knownKeys());
    for (const [key, a] of current) {
      if (!known.has(key)) {
        this.deps.bus.emit('anomaly.new', {
          severity: a.severity,
          type: a.type,
          description: a.description,
          epoch: now,
          subject: a.subject,
        });
      }
      this.remember(key, now);
    }
    for (const key of known) if (!current.has(key)) this.forget(key);
  }

  private heard(now: number): HeardEvidence {
    this.failures = this.failures.filter((f) => f.epoch >= now - FAILURE_WINDOW_S);
    this.flows = this.flows.filter((f) => f.epoch >= now - FLOW_WINDOW_S);
    const provided = this.deps.flowAlarms?.(now);
    return {
      controllerFailures: this.failures,
      flowAlarms: provided !== undefined ? provided : this.heardFlow ? this.flows : null,
      restartPendingSince: this.restartSince,
    };
  }

  private noteRestart(required: boolean): void {
    if (!required) this.restartSince = null;
    else this.restartSince ??= epochSeconds(this.deps.clock);
  }

  private tick(): void {
    try {
      this.evaluate();
    } catch (err) {
      this.log.warn({ err }, 'anomaly evaluation failed');
    }
    this.timer = setTimeout(() => this.tick(), Math.max(60, this.ttl()) * 1000);
    this.timer.unref();
  }

  private ttl(): number {
    return this.deps.ttlS?.() ?? DEFAULT_TTL_S;
  }

  private knownKeys(): string[] {
    const stored = this.deps.announced;
    return stored ? stored.withPrefix(KEY_PREFIX).map((a) => a.key) : [...this.memory.keys()];
  }

  private remember(key: string, now: number): void {
    if (this.deps.announced) this.deps.announced.touch(key, now);
    else this.memory.set(key, now);
  }

  private forget(key: string): void {
    if (this.deps.announced) this.deps.announced.remove(key);
    else this.memory.delete(key);
  }
}

/** The detectors load with the first evaluation, not at boot. */
function loadDetectors(): readonly Detector[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./detectors/index') as typeof import('./detectors/index')).DETECTORS;
}

function push<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > HEARD_LIMIT) list.splice(0, list.length - HEARD_LIMIT);
}
