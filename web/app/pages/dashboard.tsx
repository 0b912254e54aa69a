import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { ChartAxis, ChartSeries } from '../components/chart';
import { ErrorNotice } from '../components/error-notice';
import { Link } from '../components/link';
import { useLiveSnapshot } from '../lib/stream';
import { YardTimeNote } from '../components/yard-time-note';
import { formatAge, formatDateTime, formatDuration, formatTime } from '../lib/time';
import {
  displayValue,
  formatQuantity,
  localizeUnits,
  unitLabel,
  useUnits,
  type UnitSystem,
} from '../lib/units';
import { useYardZone } from '../lib/yard-time';
import { useApi } from '../lib/use-api';
import { buildHourly, rainSummary, tempSummary } from './dashboard/forecast-series';
import { LazyChart } from './dashboard/lazy-chart';
import { LiveIndicator, useNow } from './dashboard/live';
import { Shown } from './dashboard/shown';
import {
  nextRun,
  sevenDays,
  todayVerdict,
  zoneStandings,
  type DaySummary,
  type ZoneStandings,
} from './dashboard/verdict';
import { buildTiles, tileProvenance, type Tile } from './dashboard/weather-tiles';
import type { ForecastSnapshot, WeatherHistory, WeatherSnapshot } from './dashboard/weather-types';
import type { IrrigationSnapshot } from './zones/irrigation-types';
import { suppressedToday } from './schedules/schedules-model';
import { ownWindowsToday, windowSpan } from './dashboard/own-windows';
import type { Format } from './zones/zone-model';
import './dashboard/dashboard.css';

/**
 * The dashboard (/): today's verdict and why, the next run, live weather
 * tiles with their source and age, the next 7 days and the rain/forecast
 * chart. Everything live from the three snapshot feeds; unknown stays unknown.
 */

interface WizardState {
  config_present?: boolean;
  draft_present?: boolean;
}

function SetupNotice() {
  const state = useApi<WizardState>('wizard/state');
  const data = state.data;
  if (!data || (data.config_present !== false && !data.draft_present)) return null;
  return (
    <div class="notice notice-warn setup-notice">
      <strong>Raincheck is not set up yet.</strong>{' '}
      {data.config_present === false
        ? 'Tell it where you are, which weather sources to use and which zones to water.'
        : 'A setup draft has not been applied yet.'}{' '}
      <Link to="setup" class="button primary">
        Finish setting up
      </Link>
    </div>
  );
}

/** Where each zone stands today: watering, due but held (and why), unknown (and what to do), not due. */
function ZoneStandingsList({ standings }: { standings: ZoneStandings }) {
  const groups: { key: keyof ZoneStandings; title: string; note?: string }[] = [
    { key: 'watering', title: 'Watering today' },
    {
      key: 'waiting',
      title: 'Waiting for rain',
      note: 'Due, but forecast rain is expected, and the zone can wait for it within its stress allowance. If the rain does not come, the next session waters it.',
    },
    { key: 'held', title: 'Due, but held today' },
    {
      key: 'unknown',
      title: 'Soil water unknown',
      note: 'Raincheck does not water on a guess. Open a zone to declare its soil state (for example “watered to full yesterday”), and it can plan from there.',
    },
    { key: 'notDue', title: 'Not due' },
  ];
  const shown = groups.filter((g) => standings[g.key].length > 0);
  if (shown.length === 0) return null;
  return (
    <div class="standings" data-testid="zone-standings">
      {shown.map((group) => (
        <div class={`standing standing-${group.key}`} key={group.key} data-standing={group.key}>
          <h3>
            {group.title} <span class="muted">({standings[group.key].length})</span>
          </h3>
          {group.note && <p class="muted small">{group.note}</p>}
          <ul>
            {standings[group.key].map((zone) => (
              <li key={zone.slug} data-zone={zone.slug}>
                <Link to={`zones/${zone.slug}`}>{zone.name}</Link>
                {group.key === 'watering' && <> {formatDuration(zone.seconds)}</>}
                {group.key !== 'notDue' && zone.reason && <span class="muted">: {zone.reason}</span>}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function TodayCard({ snapshot, now }: { snapshot: IrrigationSnapshot | null; now: number }) {
  const units = useUnits();
  const timeZone = useYardZone(snapshot?.timezone);
  const view = { timeZone, units };
  const verdict = todayVerdict(snapshot, now, view);
  const next = nextRun(snapshot, view);
  const standings = zoneStandings(snapshot, view);
  const explanation = useApi<Explanation>(snapshot ? 'irrigation/explanation' : null);
  // The explanation follows the verdict: fetch it again when the verdict changes.
  const verdictKey = `${snapshot?.decision_trace?.verdict ?? ''}:${snapshot?.decision_trace?.reason_code ?? ''}`;
  const lastKey = useRef(verdictKey);
  const reloadExplanation = explanation.reload;
  useEffect(() => {
    if (lastKey.current === verdictKey) return;
    lastKey.current = verdictKey;
    reloadExplanation();
  }, [verdictKey, reloadExplanation]);
  const window = snapshot?.today_window;
  return (
    <section class={`card today today-${verdict.kind}`} aria-labelledby="today-title">
      <h2 id="today-title">Today</h2>
      <p class="verdict" data-testid="verdict">
        {verdict.sentence}
      </p>
      {verdict.details.length > 0 && (
        <ul class="verdict-details">
          {verdict.details.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <ZoneStandingsList standings={standings} />
      <div class="next-run" data-testid="next-run">
        {next.planned && next.epoch !== null ? (
          <>
            <span class="next-label">Next run</span>{' '}
            <time dateTime={new Date(next.epoch * 1000).toISOString()}>
              {formatDateTime(next.epoch, timeZone)}
            </time>
            {': '}
            {next.zones.length > 0
              ? next.zones.map((z) => `${z.name} ${formatDuration(z.seconds)}`).join(', ')
              : 'zones not listed'}{' '}
            <span class="muted">
              ({next.minutes !== null ? `${next.minutes} min in all` : 'length unknown'})
            </span>
          </>
        ) : (
          <span>{next.text}</span>
        )}
      </div>
      {window && window.start > 0 && window.finish > window.start && (
        <p class="muted small" data-testid="run-window">
          Today’s run window:{' '}
          <time dateTime={new Date(window.start * 1000).toISOString()}>
            {formatDateTime(window.start, timeZone)}
          </time>{' '}
          –{' '}
          <time dateTime={new Date(window.finish * 1000).toISOString()}>
            {formatTime(window.finish, timeZone)}
          </time>
          {window.finish < now / 1000 ? ' (passed)' : ''}
        </p>
      )}
      <OwnWindowsToday snapshot={snapshot} timeZone={timeZone} />
      <SuppressedToday snapshot={snapshot} />
      {snapshot?.master_enable === false && (
        <p class="notice notice-warn">Watering is switched off (master enable is off): nothing will run.</p>
      )}
      {snapshot?.restart_required && (
        <p class="notice notice-warn">
          Restart needed:{' '}
          {(snapshot.restart_reasons ?? []).join('; ') || 'a controller changed while a valve was open'}
        </p>
      )}
      {snapshot &&
        (explanation.data ? (
          <ExplanationBlock explanation={explanation.data} units={units} />
        ) : (
          // Reserved (closed) until the explanation arrives, so nothing below moves.
          <div class="explanation" data-testid="explanation">
            <details>
              <summary>How Raincheck decided</summary>
              <p class="muted small">
                {explanation.error ? 'The explanation could not be loaded.' : 'Loading…'}
              </p>
            </details>
          </div>
        ))}
    </section>
  );
}

/** Zones that run today in a window of their own, not the run window above (`water_plan[0].zones[].run_window`). */
function OwnWindowsToday({ snapshot, timeZone }: { snapshot: IrrigationSnapshot | null; timeZone?: string }) {
  const windows = ownWindowsToday(snapshot);
  if (windows.length === 0) return null;
  return (
    <ul
      class="muted small own-windows"
      data-testid="own-run-windows"
      aria-label="Zones with their own run window"
    >
      {windows.map((w) => (
        <li key={w.zone} data-zone={w.zone}>
          {w.name}’s own window:{' '}
          <time dateTime={new Date(w.start * 1000).toISOString()}>{windowSpan(w, timeZone)}</time>
          {w.closed ? ' (passed)' : ''}
        </li>
      ))}
    </ul>
  );
}

/** Zones an override schedule waters today instead of the smart plan (spec `smart_suppressed.active_today`). */
function SuppressedToday({ snapshot }: { snapshot: IrrigationSnapshot | null }) {
  const zones = suppressedToday(snapshot);
  if (zones.length === 0) return null;
  return (
    <p class="muted small" data-testid="schedule-suppressed">
      Fixed schedules water today instead of the smart plan:{' '}
      {zones.map((z) => `${z.name} (${z.schedules.join(', ')})`).join('; ')}.{' '}
      <Link to="schedules">Schedules</Link>
    </p>
  );
}

/** GET /irrigation/explanation: the advisor's words when a model phrased them, the engine's account always. */
interface Explanation {
  source: 'llm' | 'engine';
  text: string;
  engine_text: string;
  provider: string | null;
  model: string | null;
}

function ExplanationBlock({ explanation, units }: { explanation: Explanation; units: UnitSystem }) {
  const phrased = explanation.source === 'llm';
  return (
    <div class="explanation" data-testid="explanation" data-source={explanation.source}>
      {phrased && (
        <>
          <p class="explanation-text">{localizeUnits(explanation.text, units)}</p>
          <p class="muted small">
            Phrased by your {explanation.provider ?? 'local'} model
            {explanation.model ? ` (${explanation.model})` : ''} from the engine’s account below; it decides
            nothing.
          </p>
        </>
      )}
      <details>
        <summary>How Raincheck decided</summary>
        <pre>{localizeUnits(explanation.engine_text, units)}</pre>
      </details>
    </div>
  );
}

/** "29.89 inHg" -> the number large, the unit small (one text for screen readers either way). */
function NumberWithUnit({ text }: { text: string }) {
  const m = /^(-?[\d.,]+)\s*(.*)$/.exec(text);
  if (!m) return <>{text}</>;
  return (
    <>
      {m[1]}
      {m[2] && <span class="unit">{m[2].startsWith('°') || m[2] === '%' ? m[2] : ` ${m[2]}`}</span>}
    </>
  );
}

function WeatherTile({ tile, now }: { tile: Tile; now: number }) {
  const provenance = tileProvenance(tile, now);
  return (
    <li class="tile" title={provenance} data-field={tile.key}>
      <div class="label">{tile.label}</div>
      <div class="value">
        {tile.value === null ? <Shown text={null} /> : <NumberWithUnit text={tile.value} />}
      </div>
      {tile.detail && tile.value !== null && <div class="detail">{tile.detail}</div>}
      <div class="meta">
        <span aria-hidden="true">
          {tile.value === null ? 'no live reading' : formatAge(tile.observedEpoch, now)}
        </span>
        <span class="visually-hidden">{provenance}</span>
      </div>
    </li>
  );
}

function WeatherSection({
  weather,
  irrigation,
  fmt,
  metric,
  now,
}: {
  weather: WeatherSnapshot;
  irrigation: IrrigationSnapshot | null;
  fmt: Format;
  metric: boolean;
  now: number;
}) {
  const tiles = buildTiles(weather, irrigation?.current_weather, fmt, metric);
  const last = typeof weather.last_packet_epoch === 'number' ? weather.last_packet_epoch : null;
  return (
    <section aria-labelledby="weather-title" class="weather">
      <div class="spread section-head">
        <h2 id="weather-title">Current weather</h2>
        <span class="muted small">
          {weather.source_label ?? 'unknown source'}
          {last !== null ? ` · updated ${formatAge(last, now)}` : ' · no reading yet'}
        </span>
      </div>
      {weather.has_live_station === false && tiles.some((t) => t.value !== null) && (
        <p class="muted small">No local station reports live: these values come from other sources.</p>
      )}
      <ul class="tiles weather-tiles">
        {tiles.map((tile) => (
          <WeatherTile tile={tile} now={now} key={tile.key} />
        ))}
      </ul>
    </section>
  );
}

/** "82°F" -> "82°" for the narrow day cards (the unit is named in the strip's note). */
function shortTemp(text: string): string {
  return text.replace(/°[CF]$/, '°');
}

function DayCard({ day, fmt }: { day: DaySummary; fmt: Format }) {
  const tone = { water: 'ok', skip: 'warn', none: '', unknown: 'danger' }[day.kind];
  return (
    <li class={`day day-${day.kind}`}>
      <div class="day-head">
        <h3>
          <time dateTime={day.date}>{day.label}</time>
        </h3>
        <span class={`badge ${tone}`}>{day.verdictText}</span>
      </div>
      {day.reason && <p class="day-reason">{day.reason}</p>}
      <dl class="day-facts">
        <div>
          <dt>Planned</dt>
          <dd>
            <Shown
              text={
                day.plannedSeconds === null
                  ? null
                  : day.plannedSeconds > 0
                    ? formatDuration(day.plannedSeconds)
                    : 'none'
              }
            />
          </dd>
        </div>
        <div>
          <dt>Rain</dt>
          <dd>
            <Shown text={day.rainIn === null ? null : fmt('rain_in', day.rainIn)} />
            {day.rainPct !== null && <span class="muted"> · {day.rainPct}%</span>}
            {day.rainEvidenceIncomplete && <span class="muted"> (incomplete)</span>}
          </dd>
        </div>
        <div>
          <dt>
            <abbr title="High and low temperature">Hi / lo</abbr>
          </dt>
          <dd>
            <Shown text={day.tempMaxF === null ? null : shortTemp(fmt('temp_f', day.tempMaxF))} /> /{' '}
            <Shown text={day.tempMinF === null ? null : shortTemp(fmt('temp_f', day.tempMinF))} />
          </dd>
        </div>
        <div>
          <dt>
            <abbr title="Reference evapotranspiration: how much water a reference lawn loses">
              ET<sub>0</sub>
            </abbr>
          </dt>
          <dd
            title={
              day.et0Source === 'computed'
                ? 'Computed by Raincheck (the forecast does not report it)'
                : undefined
            }
          >
            <Shown text={day.et0Mm === null ? null : fmt('depth_mm', day.et0Mm)} />
            {day.et0Source === 'computed' && (
              <>
                <span aria-hidden="true">*</span>
                <span class="visually-hidden"> (computed by Raincheck)</span>
              </>
            )}
          </dd>
        </div>
      </dl>
    </li>
  );
}

function ForecastSource({ forecast, now }: { forecast: ForecastSnapshot; now: number }) {
  const fetched = forecast.last_refresh_epoch;
  if (!fetched)
    return (
      <p class="muted small">
        No forecast has been fetched yet
        {forecast.source_reachable ? '' : ' (the forecast source is not reachable)'}.
      </p>
    );
  return (
    <p class="muted small">
      Forecast: {forecast.source_label}
      {forecast.source_is_backup ? ' (backup source)' : ''}
      {forecast.source_reachable ? '' : ' — not reachable, showing the last forecast'} · fetched{' '}
      {formatAge(fetched, now)}
    </p>
  );
}

function ForecastCharts({
  forecast,
  history,
  now,
  fmt,
  timeZone,
}: {
  forecast: ForecastSnapshot | null;
  history: WeatherHistory | null;
  now: number;
  fmt: Format;
  timeZone: string | undefined;
}) {
  const units = useUnits();
  const hour = Math.floor(now / 3_600_000);
  const charts = useMemo(() => {
    const h = buildHourly(history, forecast, hour * 3600);
    const rainUnit = unitLabel('rain_in', units);
    const tempUnit = unitLabel('temp_f', units);
    const rainDigits = units === 'metric' ? 1 : 2;
    const conv = (values: (number | null)[], q: 'rain_in' | 'temp_f') =>
      values.map((v) => displayValue(q, v, units));
    const hourLabel = (epoch: number) =>
      new Date(epoch * 1000).toLocaleString(undefined, {
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        timeZone,
      });
    const rainSeries: ChartSeries[] = [
      {
        label: 'Observed rain',
        values: conv(h.observedRainIn, 'rain_in'),
        color: '--rain',
        style: 'bars',
        scale: 'rain',
        unit: rainUnit,
        digits: rainDigits,
      },
      {
        label: 'Forecast rain',
        values: conv(h.forecastRainIn, 'rain_in'),
        color: '--water',
        style: 'bars',
        scale: 'rain',
        unit: rainUnit,
        digits: rainDigits,
      },
      {
        label: 'Chance of rain',
        values: h.forecastPct,
        color: '--accent',
        scale: 'pct',
        unit: '%',
        digits: 0,
        dash: true,
      },
    ];
    const rainAxes: ChartAxis[] = [
      {
        scale: 'rain',
        label: `Rain (${rainUnit})`,
        min: 0,
        softMax: units === 'metric' ? 2 : 0.1,
        digits: rainDigits,
      },
      { scale: 'pct', label: 'Chance (%)', side: 'right', min: 0, max: 100 },
    ];
    const tempSeries: ChartSeries[] = [
      {
        label: 'Observed',
        values: conv(h.observedTempF, 'temp_f'),
        color: '--warn',
        markers: true,
        scale: 'temp',
        unit: tempUnit,
      },
      {
        label: 'Forecast',
        values: conv(h.forecastTempF, 'temp_f'),
        color: '--warn',
        scale: 'temp',
        unit: tempUnit,
        dash: true,
      },
    ];
    const tempAxes: ChartAxis[] = [{ scale: 'temp', label: `Temperature (${tempUnit})`, zero: false }];
    return {
      x: h.x,
      rainSeries,
      rainAxes,
      tempSeries,
      tempAxes,
      rainText: rainSummary(h, fmt, hourLabel),
      tempText: tempSummary(h, fmt),
    };
    // fmt follows units; keying on the hour keeps the chart from rebuilding on every tick.
  }, [history, forecast, hour, units, timeZone]);
  const nowEpoch = Math.floor(now / 600_000) * 600;
  return (
    <div class="forecast-charts">
      <div>
        <h3>Rain</h3>
        <LazyChart
          label="Rain: observed over the last 24 hours and forecast for the next 48, with the chance of rain"
          summary={charts.rainText}
          labels={charts.x}
          series={charts.rainSeries}
          axes={charts.rainAxes}
          now={nowEpoch}
          timeZone={timeZone}
          showSummary
          height={220}
        />
      </div>
      <div>
        <h3>Temperature</h3>
        <LazyChart
          label="Temperature: observed over the last 24 hours and forecast for the next 48"
          summary={charts.tempText}
          labels={charts.x}
          series={charts.tempSeries}
          axes={charts.tempAxes}
          now={nowEpoch}
          timeZone={timeZone}
          showSummary
          height={200}
        />
      </div>
    </div>
  );
}

export default function DashboardPage() {
  const weather = useLiveSnapshot<WeatherSnapshot>('weather');
  const irrigation = useLiveSnapshot<IrrigationSnapshot>('irrigation');
  const forecast = useLiveSnapshot<ForecastSnapshot>('forecast');
  // Observed weather history is mounted only with a database: a failure just leaves the observed series out.
  const history = useApi<WeatherHistory>('weather/history?hours=24');
  // Its reloads (every 10 minutes) keep what it showed: only the first answer is waited for.
  const historyAnswered = useRef(false);
  const units = useUnits();
  const now = useNow(10_000);
  const fmt: Format = (q, v) => formatQuantity(q, v, units);

  useEffect(() => {
    const timer = setInterval(history.reload, 10 * 60_000);
    return () => clearInterval(timer);
  }, [history.reload]);

  const live = weather.live && irrigation.live;
  const timeZone = useYardZone(irrigation.data?.timezone ?? forecast.data?.timezone);
  const days = sevenDays(irrigation.data, forecast.data, 7, { timeZone, units });

  // The page appears whole once its data has answered (or failed): sections that filled in one
  // by one pushed each other down the page (layout shift); the skeleton below holds nothing to move.
  const settled = (feed: { data: unknown; error: unknown }) => feed.data !== null || feed.error !== null;
  if (!history.loading) historyAnswered.current = true;
  const ready = settled(irrigation) && settled(weather) && settled(forecast) && historyAnswered.current;
  if (!ready)
    return (
      <div class="dashboard">
        <div class="spread page-head">
          <h1>Dashboard</h1>
          <LiveIndicator live={live} />
        </div>
        <p class="loading dashboard-loading" aria-busy="true">
          Loading the dashboard…
        </p>
      </div>
    );

  return (
    <div class="dashboard">
      <div class="spread page-head">
        <h1>Dashboard</h1>
        <LiveIndicator live={live} />
      </div>
      <YardTimeNote zone={timeZone} />
      <SetupNotice />
      {/* Before setup the plan does not exist yet (409 config_absent): the setup notice says so. */}
      {irrigation.error && irrigation.error.code !== 'config_absent' && (
        <ErrorNotice error={irrigation.error} title="The irrigation plan could not be loaded" />
      )}
      {weather.error && <ErrorNotice error={weather.error} title="Live weather could not be loaded" />}
      {forecast.error && <ErrorNotice error={forecast.error} title="The forecast could not be loaded" />}

      <TodayCard snapshot={irrigation.data} now={now} />

      {weather.data ? (
        <WeatherSection
          weather={weather.data}
          irrigation={irrigation.data}
          fmt={fmt}
          metric={units === 'metric'}
          now={now}
        />
      ) : (
        !weather.error && (
          <p class="loading" aria-busy="true">
            Loading weather…
          </p>
        )
      )}

      <section aria-label="Next 7 days" class="week">
        <h2>Next 7 days</h2>
        {days.length === 0 ? (
          <p class="muted">No forecast days yet.</p>
        ) : (
          <ol class="week-strip">
            {days.map((day) => (
              <DayCard day={day} fmt={fmt} key={day.date} />
            ))}
          </ol>
        )}
        {days.some((d) => d.et0Source === 'computed') && (
          <p class="muted small">
            * ET<sub>0</sub> computed by Raincheck from the forecast (FAO-56); the forecast does not report
            it. Temperatures in {unitLabel('temp_f', units)}.
          </p>
        )}
        {forecast.data && <ForecastSource forecast={forecast.data} now={now} />}
      </section>

      <section aria-label="Rain and forecast chart" class="card charts">
        <h2>Rain and forecast</h2>
        {!history.data && !history.loading && (
          <p class="muted small">
            Observed history is not available (no history database): only the forecast is shown.
          </p>
        )}
        <ForecastCharts
          forecast={forecast.data}
          history={history.data}
          now={now}
          fmt={fmt}
          timeZone={timeZone}
        />
      </section>
    </div>
  );
}
