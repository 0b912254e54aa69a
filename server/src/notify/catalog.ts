import type {
  AnomalyEvent,
  ControllerFailureEvent,
  FlowAlarmEvent,
  SourceStatusEvent,
  TuningDigestEvent,
  ValveWatchdogEvent,
  WateringFinishedEvent,
} from '../core/bus';
import { localizeUnits } from '../core/units/localize';
import { depth, duration, flowRate, listed, plural, volume, type UnitSystem } from './format';
import type { ChannelId, Notice, Severity } from './types';

/**
 * The one catalog of what the owner can be told. Each event has its id, a
 * label and description for the settings page, a severity, the channels it
 * goes to until the owner chooses otherwise, and the builder that turns its
 * cause into a notice: title, body, deep link into the web app, tag and
 * coalescing key with its window. Builders are pure; the subscriber
 * (subscriber.ts) decides when a cause happened.
 */

export interface NoticeContext {
  epoch: number;
  units: UnitSystem;
  zoneName: (slug: string) => string;
}

/** What a builder decides; the catalog adds the event id, window and time. */
interface Draft {
  title: string;
  body: string;
  link: string;
  tag: string;
  /** Coalescing key when it differs from the tag (a later, different state of the same thing). */
  key?: string;
  severity?: Severity;
}

interface Definition<P> {
  label: string;
  description: string;
  severity: Severity;
  defaults: readonly ChannelId[];
  window_s: number;
  build(payload: P, ctx: NoticeContext): Draft | null;
}

const PUSHES: readonly ChannelId[] = ['web_push', 'ntfy', 'slack'];
const EVERYWHERE: readonly ChannelId[] = ['web_push', 'ntfy', 'slack', 'email'];
const HOUR = 3600;

/** Today's held-back zones (the scheduler's skip markers) with the plan's reason for each. */
export interface SkipToday {
  date: string;
  zones: { zone: string; reason: string }[];
}

/** Rule 6: the `cap_binding_past_raw` anomaly of one zone. */
export interface CapBinding {
  zone: string;
  description: string;
}

/** Rule 4: the yard decides without a forecast (`absent`), or has one again (`back`). */
export interface ForecastAbsence {
  state: 'absent' | 'back';
  /** Since when every zone's forecast credit has been unavailable. */
  since_epoch: number;
  /** When the forecast was last refreshed; null when never. */
  last_seen_epoch: number | null;
}

export interface CapRaised {
  zone: string;
  previous_minutes: number;
  minutes: number;
}

const definitions = {
  watering_finished: {
    label: 'Watering finished',
    description: 'A zone finished its watering (all cycles): how long, and the water the run ledger credits.',
    severity: 'info',
    defaults: PUSHES,
    window_s: HOUR,
    build: (e: WateringFinishedEvent, ctx) => {
      const name = ctx.zoneName(e.zone);
      const amounts = [depth(e.applied_mm, ctx.units), volume(e.volume_gal, ctx.units)].filter(Boolean);
      const pretend = e.source.startsWith('dry_run') ? ' (dry run: no valve opened)' : '';
      const water = amounts.length > 0 ? `, ${amounts.join(', ')}` : '';
      const stopped = e.status === 'aborted';
      return {
        title: stopped ? `${name} stopped early` : `${name} watered`,
        body:
          `${stopped ? 'Ran' : 'Watered'} ${duration(e.duration_s)}${water}${pretend}.` +
          (stopped && e.note ? ` ${localizeUnits(e.note, ctx.units)}.` : ''),
        link: `/zones/${e.zone}`,
        tag: `watered-${e.zone}-${e.session_id ?? e.start_epoch}`,
      };
    },
  } satisfies Definition<WateringFinishedEvent>,

  skip_today: {
    label: "Today's skip",
    description: 'Zones that needed water today but are held back, and why (once a day, at the run window).',
    severity: 'info',
    defaults: PUSHES,
    window_s: 24 * HOUR,
    build: (e: SkipToday, ctx) => {
      if (e.zones.length === 0) return null;
      // The plan's reasons follow deployment.units already; one written before a units change is converted.
      const lines = e.zones.map((z) => `${ctx.zoneName(z.zone)}: ${localizeUnits(z.reason, ctx.units)}`);
      return {
        title: `Not watering ${e.zones.length === 1 ? ctx.zoneName(e.zones[0]!.zone) : plural(e.zones.length, 'zone')} today`,
        body: lines.join('\n'),
        link: '/',
        tag: `skip-${e.date}`,
      };
    },
  } satisfies Definition<SkipToday>,

  controller_failure: {
    label: 'Controller failure',
    description: 'A controller refused a command or its credential, or could not be reached.',
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: 6 * HOUR,
    build: (e: ControllerFailureEvent, ctx) => {
      const credential = e.code === 'controller_auth_failed';
      const what = e.zone ? `${e.action} of ${ctx.zoneName(e.zone)}` : e.action.replace(/_/g, ' ');
      return {
        title: credential
          ? `Controller ${e.controller_id} rejected its credential`
          : `Controller ${e.controller_id} failed`,
        body: `${what}: ${e.message}`,
        link: e.zone ? `/zones/${e.zone}` : '/settings/config',
        tag: `controller-${e.controller_id}`,
        key: `controller-${e.controller_id}-${e.code}`,
        severity: credential ? 'critical' : 'warning',
      };
    },
  } satisfies Definition<ControllerFailureEvent>,

  valve_watchdog: {
    label: 'Valve closed by the watchdog',
    description: 'A valve stayed open past its planned end and Raincheck closed it (or could not).',
    severity: 'critical',
    defaults: EVERYWHERE,
    window_s: HOUR,
    build: (e: ValveWatchdogEvent, ctx) => {
      const name = ctx.zoneName(e.zone);
      const when = e.by === 'boot' ? 'after a restart' : 'past its planned end';
      return {
        title: e.closed ? `${name}: valve closed by the watchdog` : `${name}: valve may still be open`,
        body: e.closed
          ? `The valve was open ${when}; Raincheck closed it (${plural(e.attempts, 'attempt')}).`
          : `The valve was open ${when} and ${plural(e.attempts, 'stop attempt')} failed. Check controller ${e.controller_id}.`,
        link: `/zones/${e.zone}`,
        tag: `watchdog-${e.zone}`,
        key: `watchdog-${e.zone}-${e.closed ? 'closed' : 'open'}`,
      };
    },
  } satisfies Definition<ValveWatchdogEvent>,

  flow_alarm: {
    label: 'Flow alarm',
    description: "A zone's metered flow left its learned baseline, or showed none with the valve open.",
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: HOUR,
    build: (e: FlowAlarmEvent, ctx) => {
      const name = ctx.zoneName(e.zone);
      const rate = flowRate(e.rate_gpm, ctx.units);
      const baseline = flowRate(e.baseline_gpm, ctx.units);
      const seen = rate ? `${rate}${baseline ? ` against a usual ${baseline}` : ''}` : 'no reading';
      const kind = { high: 'High flow', low: 'Low flow', none: 'No flow' }[e.kind];
      return {
        title: `${kind} on ${name}`,
        body: `${seen}.${e.stopped ? ' The zone was stopped.' : ''}`,
        link: `/zones/${e.zone}`,
        tag: `flow-${e.zone}`,
        key: `flow-${e.zone}-${e.kind}`,
        severity: e.stopped ? 'critical' : 'warning',
      };
    },
  } satisfies Definition<FlowAlarmEvent>,

  source_offline: {
    label: 'Weather source offline',
    description:
      'A weather source sent nothing for the hard-offline window (about 30 minutes), and when it is back.',
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: HOUR,
    build: (e: SourceStatusEvent) => {
      const back = e.status !== 'offline';
      return {
        title: back ? `Weather source ${e.id} is back` : `Weather source ${e.id} is offline`,
        body: back
          ? `It reports again (${e.status}).`
          : 'Nothing from it for 30 minutes; decisions use the other sources and the forecast meanwhile.',
        link: '/settings/config',
        tag: `source-${e.id}`,
        key: `source-${e.id}-${back ? 'back' : 'offline'}`,
        severity: back ? 'info' : 'warning',
      };
    },
  } satisfies Definition<SourceStatusEvent>,

  anomaly: {
    label: 'New anomaly',
    description: 'An anomaly detector found something new in the weather or watering record.',
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: 24 * HOUR,
    build: (e: AnomalyEvent) => ({
      title: `Anomaly: ${e.type.replace(/_/g, ' ')}`,
      body: e.description,
      link: '/history',
      tag: `anomaly-${e.type}`,
      severity: e.severity,
    }),
  } satisfies Definition<AnomalyEvent>,

  cap_binding: {
    label: 'Run cap leaves a zone short',
    description:
      "A zone's max_run_minutes cut its last sessions short in a row and the zone is past RAW: the value to raise it to, the same day.",
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: 24 * HOUR,
    build: (e: CapBinding, ctx) => ({
      title: `${ctx.zoneName(e.zone)}: the run cap leaves it short`,
      body: localizeUnits(e.description, ctx.units),
      link: `/zones/${e.zone}`,
      tag: `cap-binding-${e.zone}`,
    }),
  } satisfies Definition<CapBinding>,

  forecast_absent: {
    label: 'Running without a forecast',
    description:
      'No usable forecast (unreachable, too old or not configured) for 30 minutes while Raincheck decides the watering, and when it is back.',
    severity: 'warning',
    defaults: PUSHES,
    window_s: HOUR,
    build: (e: ForecastAbsence, ctx) => {
      const back = e.state === 'back';
      const last =
        e.last_seen_epoch === null || e.last_seen_epoch <= 0
          ? 'none was ever received'
          : `the last one is ${duration(ctx.epoch - e.last_seen_epoch)} old`;
      return {
        title: back ? 'The forecast is back' : 'Watering without a forecast',
        body: back
          ? `Forecast rain counts in the decisions again (it was missing for ${duration(ctx.epoch - e.since_epoch)}).`
          : `No usable forecast for ${duration(ctx.epoch - e.since_epoch)} (${last}): unreachable, too old or not configured. ` +
            'Decisions use measured evidence only; forecast rain neither skips nor shortens a run until it is back.',
        link: '/',
        tag: 'forecast-absent',
        key: `forecast-${e.state}`,
        severity: back ? 'info' : 'warning',
      };
    },
  } satisfies Definition<ForecastAbsence>,

  restart_required: {
    label: 'Restart required',
    description: 'A change can only take effect after Raincheck restarts.',
    severity: 'warning',
    defaults: EVERYWHERE,
    window_s: HOUR,
    build: (e: { reasons: string[] }) => ({
      title: 'Restart Raincheck to apply a change',
      body: e.reasons.length > 0 ? e.reasons.join('\n') : 'A change waits for a restart.',
      link: '/settings',
      tag: 'restart-required',
    }),
  } satisfies Definition<{ reasons: string[] }>,

  cap_raised: {
    label: 'Run cap raised past 60 minutes',
    description: "A saved config raised a zone's max_run_minutes past 60.",
    severity: 'warning',
    defaults: PUSHES,
    window_s: 600,
    build: (e: CapRaised, ctx) => ({
      title: `${ctx.zoneName(e.zone)} may now run ${e.minutes} minutes`,
      body: `Its per-run cap went from ${e.previous_minutes} to ${e.minutes} minutes. Check that the zone drains that much water.`,
      link: `/zones/${e.zone}`,
      tag: `cap-raised-${e.zone}`,
    }),
  } satisfies Definition<CapRaised>,

  tuning_digest: {
    label: 'Weekly tuning',
    description: 'The week’s tuning suggestions that are not silenced (nothing is sent when all are).',
    severity: 'info',
    defaults: EVERYWHERE,
    window_s: 6 * 24 * HOUR,
    build: (e: TuningDigestEvent, ctx) => {
      const items = e.recommendations;
      if (items.length === 0) return null;
      const zones = [...new Set(items.map((r) => r.zone))];
      return {
        title: `${plural(items.length, 'tuning suggestion')} for ${listed(zones.map(ctx.zoneName))}`,
        body: items.map((r) => `${ctx.zoneName(r.zone)}: ${r.headline}`).join('\n'),
        link: zones.length === 1 ? `/zones/${zones[0]}` : '/zones',
        tag: 'tuning-digest',
      };
    },
  } satisfies Definition<TuningDigestEvent>,
} as const;

export type EventId = keyof typeof definitions;
type PayloadOf<E extends EventId> = Parameters<(typeof definitions)[E]['build']>[0];

export const EVENT_IDS = Object.keys(definitions) as EventId[];

export interface CatalogEntry {
  id: EventId;
  label: string;
  description: string;
  severity: Severity;
  defaults: readonly ChannelId[];
  window_s: number;
}

export const CATALOG: readonly CatalogEntry[] = EVENT_IDS.map((id) => {
  const { label, description, severity, defaults, window_s } = definitions[id];
  return { id, label, description, severity, defaults, window_s };
});

export function isEventId(value: string): value is EventId {
  return Object.hasOwn(definitions, value);
}

/** The notice for one cause, or null when the cause has nothing to tell (an empty digest). */
export function noticeFor<E extends EventId>(
  id: E,
  payload: PayloadOf<E>,
  ctx: NoticeContext,
): Notice | null {
  const definition = definitions[id] as unknown as Definition<PayloadOf<E>>;
  const draft = definition.build(payload, ctx);
  if (!draft) return null;
  return {
    event: id,
    severity: draft.severity ?? definition.severity,
    title: draft.title,
    body: draft.body,
    link: draft.link,
    tag: draft.tag,
    key: draft.key ?? draft.tag,
    window_s: definition.window_s,
    epoch: ctx.epoch,
  };
}

/** "Send a test": routed to the channels asked for, never coalesced. */
export function testNotice(epoch: number): Notice {
  return {
    event: 'test',
    severity: 'info',
    title: 'Raincheck test notice',
    body: 'Notifications reach you here. You can choose which events come to this channel in Settings.',
    link: '/settings/notifications',
    tag: `test-${epoch}`,
    key: `test-${epoch}`,
    window_s: 0,
    epoch,
  };
}
