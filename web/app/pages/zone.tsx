import { useMemo, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { Chart, type ChartAxis, type ChartSeries } from '../components/chart';
import { ErrorNotice } from '../components/error-notice';
import { Link } from '../components/link';
import { useLiveSnapshot } from '../lib/stream';
import { formatDateTime, formatDuration } from '../lib/time';
import { YardTimeNote } from '../components/yard-time-note';
import { displayValue, localizeUnits, unitLabel, useUnits } from '../lib/units';
import { useYardZone } from '../lib/yard-time';
import { useApi, type Loaded } from '../lib/use-api';
import { LiveIndicator, useNow } from './dashboard/live';
import { Shown } from './dashboard/shown';
import { appliedLabel, buildZoneDays, localDate, runSourceLabel } from './zone/history-series';
import { buildLedgerDays, ledgerSummary, type SoilLedger } from './zone/ledger-series';
import { buildMathChain } from './zone/math-chain';
import type {
  HistoryWindow,
  IrrigationSnapshot,
  RunRecord,
  Zone,
  ZoneConfigs,
} from './zones/irrigation-types';
import { BucketGauge, StateBadge, useFormat, ZoneControls, ZonePhoto } from './zones/zone-parts';
import { zoneStandingOf } from './zones/zone-standing';
import {
  depletionOf,
  lastRunText,
  overrideOf,
  plannedText,
  traceOf,
  zoneReason,
  type Format,
} from './zones/zone-model';
import { TuningEntry } from './tuning/recommendation-card';
import type { TuningReport } from './tuning/tuning-model';
import './zone/zone.css';
import './tuning/tuning.css';

/** /zones/<slug>: one zone's state and controls, today's FAO-56 math, the last 30 days and its run records. */

function TodayPlan({ zone, snapshot, fmt }: { zone: Zone; snapshot: IrrigationSnapshot; fmt: Format }) {
  const chain = buildMathChain(zone, snapshot, fmt);
  return (
    <section aria-label="Today's plan" class="card">
      <h2>Today’s plan</h2>
      <p class="plan-sentence">{chain.sentence}</p>
      <p class="muted small">
        {chain.model === 'weekly' ? 'Weekly budget model' : 'Soil water balance (FAO-56)'}; every term with
        its unit.
      </p>
      <dl class="math-chain">
        {chain.rows.map((row) => (
          <div class="math-row" key={row.key} data-term={row.key}>
            <dt>{row.term}</dt>
            <dd>
              <span class="math-value">
                <Shown text={row.value} />
              </span>
              {row.note && <span class="math-note">{row.note}</span>}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The last 30 days from the soil water ledger: the depletion band, rain, irrigation into the root zone, ETc. */
function LedgerChart({ zone, ledger, fmt }: { zone: Zone; ledger: SoilLedger; fmt: Format }) {
  const units = useUnits();
  const chart = useMemo(() => {
    const days = buildLedgerDays(ledger);
    const depthUnit = unitLabel('depth_mm', units);
    const conv = (values: (number | null)[]) => values.map((v) => displayValue('depth_mm', v, units));
    const digits = units === 'metric' ? 1 : 2;
    const line = (
      label: string,
      values: (number | null)[],
      color: string,
      extra: Partial<ChartSeries> = {},
    ) => ({
      label,
      values: conv(values),
      color,
      scale: 'depth',
      unit: depthUnit,
      digits,
      ...extra,
    });
    const series: ChartSeries[] = [
      line('Rain', days.rainMm, '--rain', { style: 'bars', barSize: 0.3, barAlign: -1 }),
      line('Irrigation (net, into the root zone)', days.irrigationMm, '--water', {
        style: 'bars',
        barSize: 0.3,
        barAlign: 1,
      }),
      line('Crop water use (ETc)', days.etcMm, '--muted', { style: 'points' }),
      line('Depletion', days.depletionMm, '--danger', { markers: true }),
      line('Depletion (lowest possible)', days.depletionLowMm, '--danger', { dash: true, markers: true }),
      line('Depletion (highest possible)', days.depletionHighMm, '--muted', { dash: true, markers: true }),
      line('Trigger (RAW)', days.triggerMm, '--text', { dash: true }),
    ];
    const axes: ChartAxis[] = [
      {
        scale: 'depth',
        label: `Water (${depthUnit})`,
        min: 0,
        softMax: units === 'metric' ? 5 : 0.2,
        digits,
      },
    ];
    return { days, series, axes, summary: ledgerSummary(days, (mm) => fmt('depth_mm', mm) ?? '—') };
  }, [ledger, units, fmt]);
  return (
    <Chart
      label={`${zone.name}: soil depletion, rain, irrigation and crop water use per day over the last 30 days`}
      summary={chart.summary}
      labels={chart.days.x}
      series={chart.series}
      axes={chart.axes}
      timeZone="UTC"
      days
      showSummary
      height={260}
    />
  );
}

/** "Soaked on <date>": the owner's word that the root zone was full that day (declare_soil_state). */
function DeclareSoaked({ zone, today, onDeclared }: { zone: Zone; today: string; onDeclared: () => void }) {
  const [date, setDate] = useState(today);
  const [state, setState] = useState<{ busy: boolean; error: unknown; done: string | null }>({
    busy: false,
    error: null,
    done: null,
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true, error: null, done: null });
    try {
      await api('irrigation/action', {
        method: 'POST',
        json: { kind: 'declare_soil_state', zone: zone.slug, state: 'soaked', date },
      });
      setState({ busy: false, error: null, done: date });
      onDeclared();
    } catch (error) {
      setState({ busy: false, error, done: null });
    }
  };
  const id = `soaked-${zone.slug}`;
  return (
    <form class="declare-soaked" onSubmit={submit}>
      <p class="muted small">
        Watered deeply or had a soaking rain Raincheck did not see? Say so, and the soil ledger starts that
        day from a full root zone.
      </p>
      <div class="row">
        <label for={id}>Soaked on</label>
        <input id={id} type="date" value={date} max={today} onInput={(e) => setDate(e.currentTarget.value)} />
        <button type="submit" disabled={state.busy || date === ''}>
          Record
        </button>
      </div>
      {state.done && (
        <p role="status" class="small">
          Recorded: {zone.name} was soaked on {state.done}.
        </p>
      )}
      {state.error !== null && <ErrorNotice error={state.error} title="The soil state was not recorded" />}
    </form>
  );
}

function LastDays({
  zone,
  snapshot,
  history,
  fmt,
}: {
  zone: Zone;
  snapshot: IrrigationSnapshot;
  history: HistoryWindow | null;
  fmt: Format;
}) {
  const units = useUnits();
  const tz = snapshot.timezone;
  const today = snapshot.decision_trace?.date_local ?? localDate(Date.now() / 1000, tz);
  const trace = traceOf(snapshot, zone.slug);
  const chart = useMemo(() => {
    const days = buildZoneDays(history, trace, zone.slug, today, tz, 30, depletionOf(zone));
    const depthUnit = unitLabel('depth_mm', units);
    const conv = (values: (number | null)[]) => values.map((v) => displayValue('depth_mm', v, units));
    const digits = units === 'metric' ? 1 : 2;
    const series: ChartSeries[] = [
      {
        label: 'Rain',
        values: conv(days.rainMm),
        color: '--rain',
        style: 'bars',
        scale: 'depth',
        unit: depthUnit,
        digits,
        barSize: 0.4,
        barAlign: -1,
      },
      {
        label: 'Irrigation applied',
        values: conv(days.appliedMm),
        color: '--water',
        style: 'bars',
        scale: 'depth',
        unit: depthUnit,
        digits,
        barSize: 0.4,
        barAlign: 1,
      },
      {
        label: 'Depletion',
        values: conv(days.depletionMm),
        color: '--danger',
        scale: 'depth',
        unit: depthUnit,
        digits,
      },
      {
        label: 'Depletion (lowest possible)',
        values: conv(days.depletionLowMm),
        color: '--danger',
        scale: 'depth',
        unit: depthUnit,
        digits,
        dash: true,
        markers: true,
      },
      {
        label: 'Depletion (highest possible)',
        values: conv(days.depletionHighMm),
        color: '--muted',
        scale: 'depth',
        unit: depthUnit,
        digits,
        dash: true,
        markers: true,
      },
    ];
    const axes: ChartAxis[] = [
      {
        scale: 'depth',
        label: `Water (${depthUnit})`,
        min: 0,
        softMax: units === 'metric' ? 5 : 0.2,
        digits,
      },
    ];
    const applied = days.appliedMm.filter((v): v is number => v !== null);
    const appliedSum = applied.reduce((a, b) => a + b, 0);
    const rainKnown = days.rainMm.filter((v): v is number => v !== null);
    const summary = [
      history
        ? `Irrigation applied over ${applied.length} days on record: ${fmt('depth_mm', appliedSum)}.`
        : 'Run history is not available (no history database).',
      days.dryRuns > 0 ? `${days.dryRuns} dry-run run(s) were pretend water and are not counted.` : '',
      days.simulatedRuns > 0
        ? `${days.simulatedRuns} simulated run(s) watered the demo's synthetic yard: its soil counts them, they are no real water and not in the applied total.`
        : '',
      rainKnown.length > 0
        ? `Rain known for ${rainKnown.length} days: ${fmt(
            'depth_mm',
            rainKnown.reduce((a, b) => a + b, 0),
          )}.`
        : 'No daily rain evidence in this window.',
      days.depletionDays > 0
        ? `Soil depletion is known (exactly or as a range) for ${days.depletionDays} days.`
        : 'No daily depletion in this window.',
    ]
      .filter(Boolean)
      .join(' ');
    return { days, series, axes, summary };
  }, [history, trace, zone, today, tz, units]);

  return (
    <Chart
      label={`${zone.name}: rain, irrigation applied and soil depletion per day over the last 30 days`}
      summary={chart.summary}
      labels={chart.days.x}
      series={chart.series}
      axes={chart.axes}
      timeZone="UTC"
      days
      showSummary
      height={240}
    />
  );
}

/** The ledger's 30 days when the service keeps it; the run history and the trace's week without a database. */
function ThirtyDays(props: {
  zone: Zone;
  snapshot: IrrigationSnapshot;
  history: HistoryWindow | null;
  ledger: Loaded<SoilLedger>;
  fmt: Format;
  onDeclared: () => void;
}) {
  const today =
    props.snapshot.decision_trace?.date_local ?? localDate(Date.now() / 1000, props.snapshot.timezone);
  return (
    <section aria-label="Last 30 days" class="card">
      <h2>Last 30 days</h2>
      {props.ledger.data ? (
        <LedgerChart zone={props.zone} ledger={props.ledger.data} fmt={props.fmt} />
      ) : (
        <LastDays zone={props.zone} snapshot={props.snapshot} history={props.history} fmt={props.fmt} />
      )}
      {props.ledger.error && props.ledger.error.status !== 404 && (
        <ErrorNotice error={props.ledger.error} title="The soil ledger could not be loaded" />
      )}
      {props.ledger.data && <DeclareSoaked zone={props.zone} today={today} onDeclared={props.onDeclared} />}
    </section>
  );
}

function RunRecords({
  runs,
  fmt,
  now,
  timeZone,
}: {
  runs: RunRecord[];
  fmt: Format;
  now: number;
  timeZone: string | undefined;
}) {
  const units = useUnits();
  const sorted = [...runs].sort((a, b) => b.start_epoch - a.start_epoch);
  return (
    <section aria-labelledby="runs-title" class="card">
      <h2 id="runs-title">Run records</h2>
      <div class="table-wrap" tabIndex={0} role="group" aria-labelledby="runs-title">
        <table class="runs">
          <caption>Run records</caption>
          <thead>
            <tr>
              <th scope="col">Start</th>
              <th scope="col">Duration</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Applied water</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((run, i) => {
              const applied = appliedLabel(run, (mm) => fmt('depth_mm', mm));
              const open = run.status === 'running' || run.status === 'intended';
              return (
                <tr key={`${run.session_id ?? ''}-${run.start_epoch}-${run.source ?? ''}-${i}`}>
                  <td>
                    <time dateTime={new Date(run.start_epoch * 1000).toISOString()}>
                      {formatDateTime(run.start_epoch, timeZone)}
                    </time>
                  </td>
                  <td>
                    {open && run.duration_s === 0
                      ? `open ${formatDuration(Math.max(0, now / 1000 - run.start_epoch))}`
                      : formatDuration(run.duration_s)}
                    {run.cycle_count && run.cycle_count > 1 ? (
                      <span class="muted">
                        {' '}
                        (cycle {run.cycle_index ?? '?'} of {run.cycle_count})
                      </span>
                    ) : null}
                  </td>
                  <td>
                    <span
                      class={`badge ${run.status === 'completed' ? 'ok' : run.status === 'skipped' || run.status === 'aborted' ? 'warn' : ''}`}
                    >
                      {run.status ?? 'unknown'}
                    </span>
                  </td>
                  <td>{runSourceLabel(run.source)}</td>
                  <td>
                    <Shown text={applied} />
                  </td>
                  <td>{localizeUnits(run.note ?? run.skip_reason ?? '', units)}</td>
                </tr>
              );
            })}
            {sorted.length === 0 && (
              <tr>
                <td colSpan={6} class="muted">
                  No runs recorded in the last 30 days.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The zone's tuning entry (the report at its default window); absent without the history database. */
function ZoneTuning({ slug }: { slug: string }) {
  const report = useApi<TuningReport>('irrigation/tuning');
  const entry = report.data?.zones.find((z) => z.slug === slug) ?? null;
  if (report.error?.status === 404) return null;
  return (
    <section aria-labelledby="zone-tuning-title" class="card" data-testid="zone-tuning">
      {report.error && <ErrorNotice error={report.error} title="The tuning report could not be loaded" />}
      {entry && report.data && (
        <TuningEntry
          entry={entry}
          windowDays={report.data.window_days}
          onChanged={report.reload}
          heading={<h2 id="zone-tuning-title">Tuning</h2>}
        />
      )}
      {!entry && !report.error && <h2 id="zone-tuning-title">Tuning</h2>}
      <p class="muted small">
        <Link to="tuning">All zones and the forecast scorecard</Link>
      </p>
    </section>
  );
}

export default function ZonePage({ slug }: { slug: string }) {
  const irrigation = useLiveSnapshot<IrrigationSnapshot>('irrigation');
  const history = useApi<HistoryWindow>('irrigation/history?days=30');
  const ledger = useApi<SoilLedger>(`irrigation/soil?zone=${encodeURIComponent(slug)}&days=30`);
  const config = useApi<ZoneConfigs>('config');
  const fmt = useFormat();
  const now = useNow();
  const snapshot = irrigation.data;
  const zone = snapshot?.zones.find((z) => z.slug === slug) ?? null;
  const units = useUnits();
  const timeZone = useYardZone(snapshot?.timezone);

  if (irrigation.error && !snapshot)
    return <ErrorNotice error={irrigation.error} title="The zone could not be loaded" />;
  if (!snapshot)
    return (
      <p class="loading" aria-busy="true">
        Loading…
      </p>
    );
  if (!zone)
    return (
      <section class="zone-page">
        <h1>Zone not found</h1>
        <p>
          There is no zone “{slug}”. <Link to="zones">See all zones</Link>.
        </p>
      </section>
    );

  const runs = (history.data?.runs ?? []).filter((r) => r.zone === zone.slug);
  const reason = zoneReason(snapshot, zone.slug);
  const photo = config.data?.zones?.[zone.slug]?.photo_url ?? null;

  return (
    <div class="zone-page">
      <p class="breadcrumb">
        <Link to="zones">← All zones</Link>
      </p>
      <div class="spread page-head">
        <h1>{zone.name}</h1>
        <LiveIndicator live={irrigation.live} />
      </div>
      <YardTimeNote zone={timeZone} />
      <section aria-label="Now" class="card zone-now" data-zone={zone.slug}>
        <div class="zone-now-grid">
          <div class="zone-now-main">
            <div class="row">
              <StateBadge zone={zone} />
              {zone.math?.running_note && <span class="muted small">{zone.math.running_note}</span>}
            </div>
            <BucketGauge zone={zone} standing={zoneStandingOf(snapshot, zone.slug)} />
            <dl class="facts">
              <div>
                <dt>Planned</dt>
                <dd>{plannedText(zone.planned_run_seconds)}</dd>
              </div>
              <div>
                <dt>Last run</dt>
                <dd>{lastRunText(zone.last_run_epoch, now, timeZone)}</dd>
              </div>
              <div>
                <dt>Controller</dt>
                <dd>
                  <Shown text={zone.controller_id ?? null} />
                </dd>
              </div>
              <div>
                <dt>Devices</dt>
                <dd>
                  <Link to="devices">Devices &amp; sensors</Link>
                </dd>
              </div>
            </dl>
            {reason && <p class="zone-reason muted">{localizeUnits(reason, units)}</p>}
          </div>
          {photo && (
            <div class="zone-now-photo">
              <ZonePhoto url={photo} name={zone.name} large />
            </div>
          )}
        </div>
        <ZoneControls
          zone={zone}
          override={overrideOf(snapshot, zone.slug)}
          onChanged={() => {
            irrigation.refresh();
            history.reload();
            ledger.reload();
          }}
          onPhotoSaved={config.reload}
        />
      </section>
      <TodayPlan zone={zone} snapshot={snapshot} fmt={fmt} />
      <ZoneTuning slug={zone.slug} />
      {history.error && history.error.status !== 404 && (
        <ErrorNotice error={history.error} title="The run history could not be loaded" />
      )}
      <ThirtyDays
        zone={zone}
        snapshot={snapshot}
        history={history.data}
        ledger={ledger}
        fmt={fmt}
        onDeclared={() => {
          ledger.reload();
          irrigation.refresh();
        }}
      />
      {history.data ? (
        <RunRecords runs={runs} fmt={fmt} now={now} timeZone={timeZone} />
      ) : (
        !history.loading && (
          <section aria-labelledby="runs-title" class="card">
            <h2 id="runs-title">Run records</h2>
            <p class="muted">Run history is not available (no history database).</p>
          </section>
        )
      )}
    </div>
  );
}
