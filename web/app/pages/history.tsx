import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { YardTimeNote } from '../components/yard-time-note';
import { apiUrl, type ApiFailure } from '../lib/api';
import { formatDateTime, formatDuration } from '../lib/time';
import { formatQuantity, localizeUnits, useUnits, type UnitSystem } from '../lib/units';
import { useApi } from '../lib/use-api';
import { useYardZone } from '../lib/yard-time';
import {
  accuracyDays,
  accuracySentence,
  appliedWater,
  changeReason,
  DAY_OPTIONS,
  exportDays,
  filterDaily,
  filterRuns,
  outcomeLabel,
  outcomeTone,
  percent,
  reasonLabel,
  runTexts,
  sortChanges,
  sourceLabel,
  statusOptions,
  statusTone,
  verdictTone,
  words,
  zoneOptions,
  type AccuracyReport,
  type DailyDecision,
  type DecisionsBody,
  type HistoryWindow,
  type RunRecord,
  type ShowMode,
  type VerdictChange,
} from './history/history-model';
import './history/history.css';

/**
 * /history: watering runs and daily decisions over a chosen window, the
 * verdict changes, exports, and how often a rain skip matched the rain that
 * fell. Every row says why; a missing amount is unknown, never 0.
 */

interface ConfigZones {
  deployment?: { timezone?: string | null };
  zones?: Record<string, { display_name?: string | null }>;
}

const PAGE = 100;

export default function HistoryPage() {
  const units = useUnits();
  const [zone, setZone] = useState<string>('');
  const [days, setDays] = useState(30);
  const [show, setShow] = useState<ShowMode>('both');
  const [status, setStatus] = useState<string>('');

  const config = useApi<ConfigZones>('config');
  const history = useApi<HistoryWindow>(`irrigation/history?days=${days}`);
  const changes = useApi<DecisionsBody>(show === 'runs' ? null : `irrigation/decisions?days=${days}`);
  const accuracy = useApi<AccuracyReport>(`irrigation/accuracy?days=${accuracyDays(days)}`);

  const timezone = useYardZone(config.data?.deployment?.timezone ?? accuracy.data?.timezone);
  const configured = Object.entries(config.data?.zones ?? {}).map(([slug, z]) => ({
    slug,
    name: z.display_name || slug,
  }));
  const runs = history.data?.runs ?? [];
  const daily = history.data?.daily ?? [];
  const zones = zoneOptions(configured, runs, daily);
  const zoneName = (slug: string) => zones.find((z) => z.slug === slug)?.name ?? slug;
  const zoneFilter = zone === '' ? null : zone;

  const reload = () => {
    history.reload();
    changes.reload();
    accuracy.reload();
  };
  const loading = history.loading || accuracy.loading || changes.loading;

  return (
    <div class="history-page">
      <div class="spread">
        <h1>History</h1>
        <button type="button" onClick={reload} disabled={loading}>
          {loading ? 'Loading…' : 'Refresh'}
        </button>
      </div>
      <YardTimeNote zone={timezone} />

      <form class="card history-filters" onSubmit={(e) => e.preventDefault()} aria-label="History filters">
        <div class="history-filter-grid">
          <div class="field">
            <label for="history-zone">Zone</label>
            <select
              id="history-zone"
              value={zone}
              onChange={(e) => setZone((e.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">All zones</option>
              {zones.map((z) => (
                <option key={z.slug} value={z.slug}>
                  {z.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="history-days">Days</label>
            <select
              id="history-days"
              value={String(days)}
              onChange={(e) => setDays(Number((e.currentTarget as HTMLSelectElement).value))}
            >
              {DAY_OPTIONS.map((o) => (
                <option key={o.value} value={String(o.value)}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="history-show">Show</label>
            <select
              id="history-show"
              value={show}
              onChange={(e) => setShow((e.currentTarget as HTMLSelectElement).value as ShowMode)}
            >
              <option value="both">Both</option>
              <option value="runs">Runs</option>
              <option value="decisions">Decisions</option>
            </select>
          </div>
          {show !== 'decisions' && (
            <div class="field">
              <label for="history-status">Run status</label>
              <select
                id="history-status"
                value={status}
                onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}
              >
                <option value="">Any status</option>
                {statusOptions(runs).map((s) => (
                  <option key={s} value={s}>
                    {words(s)}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
        <div class="history-export">
          <span class="muted">
            Export{' '}
            {days === 0 ? 'up to 10 years (the most one export holds)' : `the last ${exportDays(days)} days`},
            all zones, runs and verdict changes:
          </span>
          <div class="row">
            <a
              class="button"
              href={apiUrl(`irrigation/export?days=${exportDays(days)}&format=csv`)}
              download=""
            >
              Export CSV
            </a>
            <a
              class="button"
              href={apiUrl(`irrigation/export?days=${exportDays(days)}&format=json`)}
              download=""
            >
              Export JSON
            </a>
          </div>
        </div>
      </form>

      <HistoryError error={history.error} title="The history could not be loaded" />

      {show !== 'decisions' && (
        <RunsTable
          runs={history.data ? filterRuns(runs, { zone: zoneFilter, status: status || null }) : null}
          loading={history.loading}
          zoneName={zoneName}
          timezone={timezone}
          units={units}
          filtered={zoneFilter !== null || status !== ''}
        />
      )}

      {show !== 'runs' && (
        <>
          <DecisionsTable
            days={history.data ? filterDaily(daily, zoneFilter) : null}
            loading={history.loading}
            timezone={timezone}
          />
          <HistoryError error={changes.error} title="The verdict changes could not be loaded" />
          <ChangesTable
            changes={changes.data ? sortChanges(changes.data.decisions) : null}
            timezone={timezone}
          />
        </>
      )}

      <AccuracySection
        report={accuracy.data}
        error={accuracy.error}
        loading={accuracy.loading}
        units={units}
      />
    </div>
  );
}

function HistoryError({ error, title }: { error: ApiFailure | null; title: string }) {
  if (!error) return null;
  return (
    <>
      <ErrorNotice error={error} title={title} />
      {error.status === 404 && error.code === 'not_found' && (
        <p class="notice notice-warn">
          History, decisions, exports and accuracy need the service’s history database; it did not open on
          this instance.
        </p>
      )}
    </>
  );
}

function useLimit(): [number, () => void] {
  const [limit, setLimit] = useState(PAGE);
  return [limit, () => setLimit((l) => l + PAGE)];
}

function MoreButton({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  if (shown >= total) return null;
  return (
    <div class="row history-more">
      <span class="muted">
        Showing {shown} of {total}.
      </span>
      <button type="button" onClick={onMore}>
        Show {Math.min(PAGE, total - shown)} more
      </button>
    </div>
  );
}

function Applied({ run, units }: { run: RunRecord; units: UnitSystem }) {
  const water = appliedWater(run);
  if (water.kind === 'not_water') {
    return (
      <span class="muted">
        None:{' '}
        {water.why === 'simulated'
          ? "simulated, no valve opened (it waters the demo's synthetic yard)"
          : water.why === 'dry_run'
            ? 'dry run, no valve opened'
            : 'skip event, not a run'}
      </span>
    );
  }
  if (water.kind === 'unknown') {
    return (
      <span class="unknown" title="No measurement: unknown, not zero">
        — unknown ({water.why})
      </span>
    );
  }
  return (
    <span>
      {water.mm === null ? (
        <span class="unknown">— depth unknown</span>
      ) : (
        formatQuantity('depth_mm', water.mm, units)
      )}
      {water.gal !== null && <span class="muted"> · {formatQuantity('volume_gal', water.gal, units)}</span>}
    </span>
  );
}

function RunTexts({ run, units }: { run: RunRecord; units: UnitSystem }) {
  const { skipped, note } = runTexts(run, units);
  return (
    <>
      {skipped !== null && <span>Skipped: {skipped}</span>}
      {skipped !== null && note && <br />}
      {note && <span>{note}</span>}
      {skipped === null && !note && <span class="muted">—</span>}
    </>
  );
}

function RunsTable(props: {
  runs: RunRecord[] | null;
  loading: boolean;
  zoneName: (slug: string) => string;
  timezone: string | undefined;
  units: UnitSystem;
  filtered: boolean;
}) {
  const { runs, zoneName, timezone, units } = props;
  const [limit, more] = useLimit();
  return (
    <section class="card history-block" aria-labelledby="history-runs-title">
      <h2 id="history-runs-title">Runs</h2>
      <div class="table-wrap">
        <table class="history-table">
          <caption class="visually-hidden">Runs</caption>
          <thead>
            <tr>
              <th scope="col">Start</th>
              <th scope="col">Zone</th>
              <th scope="col">Duration</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Applied water</th>
              <th scope="col">Note / reason</th>
            </tr>
          </thead>
          <tbody>
            {runs === null && (
              <tr>
                <td colSpan={7} class="muted">
                  {props.loading ? 'Loading…' : 'No data.'}
                </td>
              </tr>
            )}
            {runs?.length === 0 && (
              <tr>
                <td colSpan={7} class="muted">
                  No runs {props.filtered ? 'match these filters' : 'in this window'}.
                </td>
              </tr>
            )}
            {runs?.slice(0, limit).map((run, i) => (
              <tr key={`${run.start_epoch}-${run.zone}-${run.source}-${i}`}>
                <td data-label="Start" class="history-nowrap">
                  <time dateTime={new Date(run.start_epoch * 1000).toISOString()}>
                    {formatDateTime(run.start_epoch, timezone)}
                  </time>
                </td>
                <td data-label="Zone">{zoneName(run.zone)}</td>
                <td data-label="Duration">
                  {formatDuration(run.duration_s)}
                  {run.cycle_index !== null && run.cycle_count !== null && run.cycle_count > 1 && (
                    <span class="muted">
                      {' '}
                      · cycle {run.cycle_index + 1} of {run.cycle_count}
                    </span>
                  )}
                </td>
                <td data-label="Status">
                  <span class={`badge ${statusTone(run.status)}`}>{words(run.status)}</span>
                </td>
                <td data-label="Source">
                  {sourceLabel(run.source)} <code class="muted history-code">{run.source}</code>
                </td>
                <td data-label="Applied water">
                  <Applied run={run} units={units} />
                </td>
                <td data-label="Note / reason">
                  <RunTexts run={run} units={units} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {runs && <MoreButton shown={Math.min(limit, runs.length)} total={runs.length} onMore={more} />}
      <p class="muted history-note">
        Applied water counts each valve-open interval once: a manual run shows twice (the request and the
        controller’s observed row), so rows must not be added up. Dry-run rows and skip events are not applied
        water; a run without a measurement shows “unknown”, never 0.
      </p>
    </section>
  );
}

function DecisionsTable(props: {
  days: DailyDecision[] | null;
  loading: boolean;
  timezone: string | undefined;
}) {
  const { days, timezone } = props;
  const units = useUnits();
  const [limit, more] = useLimit();
  return (
    <section class="card history-block" aria-labelledby="history-decisions-title">
      <h2 id="history-decisions-title">Decisions</h2>
      <p class="muted history-lead">The engine’s decision for each day, and why, zone by zone.</p>
      <div class="table-wrap">
        <table class="history-table">
          <caption class="visually-hidden">Decisions</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Verdict</th>
              <th scope="col">Zones and reasons</th>
            </tr>
          </thead>
          <tbody>
            {days === null && (
              <tr>
                <td colSpan={3} class="muted">
                  {props.loading ? 'Loading…' : 'No data.'}
                </td>
              </tr>
            )}
            {days?.length === 0 && (
              <tr>
                <td colSpan={3} class="muted">
                  No daily decisions in this window.
                </td>
              </tr>
            )}
            {days?.slice(0, limit).map((day) => (
              <tr key={`${day.date_local}-${day.epoch}`}>
                <td data-label="Day">
                  <strong>{day.date_local}</strong>
                  <div class="muted history-small">decided {formatDateTime(day.epoch, timezone)}</div>
                </td>
                <td data-label="Verdict">
                  <span class={`badge ${verdictTone(day.kind)}`}>{words(day.kind)}</span>
                </td>
                <td data-label="Zones and reasons">
                  <ul class="history-zones">
                    {day.zones.map((z) => (
                      <li key={z.zone}>
                        <strong>{z.name || z.zone}</strong>{' '}
                        <span class="muted">
                          {z.planned_seconds > 0
                            ? `${formatDuration(z.planned_seconds)} planned`
                            : 'no water planned'}
                          {z.water_need ? ` · need ${z.water_need}` : ''}
                        </span>
                        <div>
                          {z.reason ? localizeUnits(z.reason, units) : reasonLabel(z.reason_code)}{' '}
                          <code class="muted history-code">{z.reason_code}</code>
                        </div>
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {days && <MoreButton shown={Math.min(limit, days.length)} total={days.length} onMore={more} />}
    </section>
  );
}

function ChangesTable({
  changes,
  timezone,
}: {
  changes: VerdictChange[] | null;
  timezone: string | undefined;
}) {
  const units = useUnits();
  const [limit, more] = useLimit();
  if (changes === null) return null;
  return (
    <section class="card history-block" aria-labelledby="history-changes-title">
      <h2 id="history-changes-title">Verdict changes</h2>
      <p class="muted history-lead">
        Each time the overall verdict changed (all zones), with what caused it: a control (pause, override), a
        skip rule, the soil model or missing evidence.
      </p>
      <div class="table-wrap">
        <table class="history-table">
          <caption class="visually-hidden">Verdict changes</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Change</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {changes.length === 0 && (
              <tr>
                <td colSpan={3} class="muted">
                  No verdict changes in this window.
                </td>
              </tr>
            )}
            {changes.slice(0, limit).map((c, i) => {
              const reason = changeReason(c.reason);
              return (
                <tr key={`${c.epoch}-${i}`}>
                  <td data-label="Time" class="history-nowrap">
                    {formatDateTime(c.epoch, timezone)}
                  </td>
                  <td data-label="Change">
                    {c.previous_verdict === null ? (
                      <span class="muted">first after start → </span>
                    ) : (
                      <>
                        <span class={`badge ${verdictTone(c.previous_verdict)}`}>
                          {words(c.previous_verdict)}
                        </span>{' '}
                        →{' '}
                      </>
                    )}
                    <span class={`badge ${verdictTone(c.verdict)}`}>{words(c.verdict)}</span>
                  </td>
                  <td data-label="Reason" data-reason={reason.code}>
                    {reason.code || reason.text ? (
                      <>
                        {reason.code && <strong>{reasonLabel(reason.code)}</strong>}
                        {reason.text && <span class="muted"> {localizeUnits(reason.text, units)}</span>}{' '}
                        {reason.code && <code class="muted history-code">{reason.code}</code>}
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <MoreButton shown={Math.min(limit, changes.length)} total={changes.length} onMore={more} />
    </section>
  );
}

function AccuracySection(props: {
  report: AccuracyReport | null;
  error: ApiFailure | null;
  loading: boolean;
  units: UnitSystem;
}) {
  const { report, units } = props;
  const [limit, more] = useLimit();
  const rows = report ? [...report.rows].reverse() : [];
  return (
    <section class="card history-block" aria-label="Rain-skip accuracy">
      <h2>Rain-skip accuracy</h2>
      <HistoryError error={props.error} title="The accuracy could not be loaded" />
      {!report && !props.error && <p class="loading">{props.loading ? 'Loading…' : 'No data.'}</p>}
      {report && (
        <>
          <div class="history-accuracy">
            <div class="tile history-pct">
              <div class="label">Matched</div>
              <div class="value">
                {report.tally.matched_pct === null ? (
                  <span class="unknown">—</span>
                ) : (
                  percent(report.tally.matched_pct)
                )}
              </div>
              <div class="meta">
                {report.tally.matched_days} of {report.tally.scored_days} scored days
              </div>
            </div>
            <div>
              <p class="history-sentence">{accuracySentence(report.tally)}</p>
              <p class="muted history-small">
                Each local day pairs that morning’s verdict with the rain the gauge measured; a day counts as
                wet at {formatQuantity('rain_in', report.rain_threshold_in, units)} or more (the rain-skip
                threshold). Skips for rain already falling prove nothing and are not scored; missing rain is
                never read as 0. {report.tally.unscored_days} of {report.tally.days} days were not scored.
              </p>
            </div>
          </div>
          <div class="table-wrap">
            <table class="history-table">
              <caption>Day by day</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Morning verdict</th>
                  <th scope="col">Rain measured</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {rows.slice(0, limit).map((row) => (
                  <tr key={row.date_local}>
                    <td data-label="Day">{row.date_local}</td>
                    <td data-label="Morning verdict">
                      {row.verdict === null ? (
                        <span class="unknown">— none recorded</span>
                      ) : (
                        <>
                          <span class={`badge ${verdictTone(row.verdict)}`}>{words(row.verdict)}</span>
                          {row.reason_code && (
                            <span class="muted"> {words(row.reason_code).toLowerCase()}</span>
                          )}
                        </>
                      )}
                    </td>
                    <td data-label="Rain measured">
                      {row.rain_observed_in === null || row.rain_evidence === 'none' ? (
                        <span class="unknown">— unknown</span>
                      ) : (
                        <>
                          {formatQuantity('rain_in', row.rain_observed_in, units)}
                          {row.rain_evidence === 'gauge_partial' && (
                            <span class="muted"> (partial: the gauge stopped reporting)</span>
                          )}
                        </>
                      )}
                    </td>
                    <td data-label="Outcome">
                      <span class={`badge ${outcomeTone(row.outcome)}`}>{outcomeLabel(row)}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <MoreButton shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />
        </>
      )}
    </section>
  );
}
