import type { AppliedConfig } from '../config/config-types';
import type { EventBus, SourceStatusEvent } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { KeyValue } from '../irrigation/dispatch/dispatcher';
import { skipMarkers } from '../irrigation/dispatch/session-plan';
import type { IrrigationSnapshot } from '../irrigation/snapshot-schema';
import { noticeFor, type EventId, type NoticeContext } from './catalog';
import { ForecastAbsenceTracker } from './forecast-absence';
import type { Notice } from './types';

/**
 * The one bus subscriber of the notification domain: it turns announcements
 * into notices through the catalog and hands them to `publish` (routing,
 * coalescing and the channel queues are the service's). It also decides the
 * causes that are not one event each:
 *
 * - today's skip: once per local day, when the run window opens (the moment
 *   the scheduler writes its skip markers), from the same markers; the date
 *   told is kept in the controls table so a restart does not tell it again;
 * - `restart_required` turning true (not every snapshot while it stays true);
 * - a weather source going offline, and back only after it was told offline;
 * - a config save raising a zone's `max_run_minutes` above 60 and above what
 *   it was (the boot load and the first wizard write are not saves over a config);
 * - the yard deciding without a forecast for 30 minutes, and the forecast
 *   back (forecast-absence.ts);
 * - the `cap_binding_past_raw` anomaly goes out as its own notice, per zone
 *   and linked to the zone, instead of the generic anomaly notice.
 */

export const SKIP_NOTICE_KEY = 'notify.skip_notice_date';
/** The anomaly type rule 6 raises (anomalies/detectors/cap-binding.ts). */
const CAP_BINDING_ANOMALY = 'cap_binding_past_raw';
/** `max_run_minutes` null means this (spec 2.6). */
const DEFAULT_MAX_RUN_MINUTES = 60;

export interface NoticeSubscriberDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  /** Persisted small values (the controls table); null without a database. */
  state: KeyValue | null;
  publish: (notice: Notice) => void;
}

export class NoticeSubscriber {
  private readonly offs: (() => void)[] = [];
  private restartRequired = false;
  private readonly toldOffline = new Set<string>();
  private skipDateMemory: string | null = null;
  private readonly log: Logger;
  private readonly forecast: ForecastAbsenceTracker;

  constructor(private readonly deps: NoticeSubscriberDeps) {
    this.log = deps.logger.child({ module: 'notify' });
    this.forecast = new ForecastAbsenceTracker(deps.state);
  }

  start(): void {
    const { bus } = this.deps;
    this.offs.push(
      bus.on(
        'watering.finished',
        this.safe((e) => this.tell('watering_finished', e)),
      ),
      bus.on(
        'controller.failure',
        this.safe((e) => this.tell('controller_failure', e)),
      ),
      bus.on(
        'valve.watchdog',
        this.safe((e) => this.tell('valve_watchdog', e)),
      ),
      bus.on(
        'flow.alarm',
        this.safe((e) => this.tell('flow_alarm', e)),
      ),
      bus.on(
        'anomaly.new',
        this.safe((e) =>
          e.type === CAP_BINDING_ANOMALY && e.subject
            ? this.tell('cap_binding', { zone: e.subject, description: e.description })
            : this.tell('anomaly', e),
        ),
      ),
      bus.on(
        'tuning.digest',
        this.safe((e) => this.tell('tuning_digest', e)),
      ),
      bus.on(
        'source.status',
        this.safe((e) => this.onSourceStatus(e)),
      ),
      bus.on(
        'config.changed',
        this.safe(({ previous, next }) => this.onConfigSaved(previous, next)),
      ),
      bus.on(
        'irrigation.snapshot',
        this.safe((snapshot) => this.onIrrigation(snapshot)),
      ),
    );
  }

  /** Bus listeners run inside the announcer's call: a notice must never break the module that announced its cause. */
  private safe<P>(handle: (payload: P) => void): (payload: P) => void {
    return (payload) => {
      try {
        handle(payload);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'could not turn an announcement into a notice');
      }
    };
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
  }

  private tell<E extends EventId>(id: E, payload: Parameters<typeof noticeFor<E>>[1]): void {
    const notice = noticeFor(id, payload, this.context());
    if (notice) this.deps.publish(notice);
  }

  private onSourceStatus(e: SourceStatusEvent): void {
    if (e.status === 'offline' && e.previous !== 'offline') {
      this.toldOffline.add(e.id);
      this.tell('source_offline', e);
    } else if (e.status !== 'offline' && this.toldOffline.delete(e.id)) {
      this.tell('source_offline', e);
    }
  }

  private onConfigSaved(previous: AppliedConfig | null, next: AppliedConfig): void {
    if (!previous) return;
    for (const [zone, settings] of Object.entries(next.config.zones)) {
      const minutes = settings.max_run_minutes ?? DEFAULT_MAX_RUN_MINUTES;
      const before = previous.config.zones[zone]?.max_run_minutes ?? DEFAULT_MAX_RUN_MINUTES;
      if (minutes > DEFAULT_MAX_RUN_MINUTES && minutes > before) {
        this.tell('cap_raised', { zone, previous_minutes: before, minutes });
      }
    }
  }

  private onIrrigation(snapshot: IrrigationSnapshot): void {
    if (snapshot.restart_required && !this.restartRequired) {
      this.tell('restart_required', { reasons: snapshot.restart_reasons });
    }
    this.restartRequired = snapshot.restart_required;
    this.tellSkipOncePerDay(snapshot);
    const forecast = this.forecast.observe(snapshot, epochSeconds(this.deps.clock));
    if (forecast) this.tell('forecast_absent', forecast);
  }

  private tellSkipOncePerDay(snapshot: IrrigationSnapshot): void {
    const today = snapshot.water_plan[0];
    const start = snapshot.today_window.start;
    if (!today || start <= 0 || epochSeconds(this.deps.clock) < start) return;
    if (this.skipDate() === today.date_local) return;
    this.setSkipDate(today.date_local);
    const zones = skipMarkers(snapshot).map((marker) => {
      const planned = today.zones.find((z) => z.zone === marker.zone);
      const reason = planned?.reason || marker.reason;
      return {
        zone: marker.zone,
        reason: snapshot.skip_check.is_paused === true ? `paused (${reason})` : reason,
      };
    });
    this.tell('skip_today', { date: today.date_local, zones });
  }

  private skipDate(): string | null {
    const stored = this.deps.state?.get(SKIP_NOTICE_KEY);
    return typeof stored === 'string' ? stored : this.skipDateMemory;
  }

  private setSkipDate(date: string): void {
    this.skipDateMemory = date;
    try {
      this.deps.state?.set(SKIP_NOTICE_KEY, date);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not remember the skip notice date');
    }
  }

  private context(): NoticeContext {
    const config = this.deps.config()?.config;
    return {
      epoch: epochSeconds(this.deps.clock),
      units: config?.deployment.units === 'metric' ? 'metric' : 'imperial',
      zoneName: (slug) => config?.zones[slug]?.display_name || slug,
    };
  }
}
