import { useId, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { Link } from '../components/link';
import { formatDateTime } from '../lib/time';
import { useApi } from '../lib/use-api';
import { TuningEntry } from './tuning/recommendation-card';
import { WINDOWS, type Scorecard, type TuningReport } from './tuning/tuning-model';
import './tuning/tuning.css';

/**
 * /tuning: what Raincheck learned from its own records. The forecast
 * scorecard, then every zone's entry with its suggestion (Apply, Dismiss).
 * The report window (7, 14 or 30 days) is echoed on apply, so the server
 * re-derives the suggestion from the evidence the owner looked at.
 */

function ScorecardCard({ card }: { card: Scorecard }) {
  return (
    <section class="card" aria-labelledby="scorecard-title" data-testid="scorecard">
      <h2 id="scorecard-title">Forecast rain skips</h2>
      {card.scored_days !== null && card.confirmed_days !== null ? (
        <p class="scorecard-figure">
          {card.confirmed_days} of {card.scored_days} confirmed
        </p>
      ) : (
        <p class="muted">
          Not scored yet: {card.min_scored_days} judged days are needed in the last {card.window_days}.
        </p>
      )}
      <p>{card.line}</p>
      {card.reactive_line && <p class="muted small">{card.reactive_line}</p>}
    </section>
  );
}

export default function TuningPage() {
  const id = useId();
  const [days, setDays] = useState(14);
  const report = useApi<TuningReport>(`irrigation/tuning?days=${days}`);

  return (
    <div class="tuning-page">
      <div class="spread page-head">
        <h1>Tuning</h1>
        <div class="tuning-window">
          <label for={`${id}-window`}>Evidence from the last</label>
          <select
            id={`${id}-window`}
            value={String(days)}
            onChange={(e) => setDays(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {WINDOWS.map((w) => (
              <option value={String(w)} key={w}>
                {w} days
              </option>
            ))}
          </select>
        </div>
      </div>
      <p class="muted">
        Suggestions come from what the zones really did (run records, session plans, decisions). Nothing
        changes until you apply it; every change keeps a config snapshot to roll back to.
      </p>
      {report.error &&
        (report.error.status === 404 ? (
          <p class="notice notice-warn">Tuning needs the history database, which is not available.</p>
        ) : (
          <ErrorNotice error={report.error} title="The tuning report could not be loaded" />
        ))}
      {!report.data && report.loading && (
        <p class="loading" aria-busy="true">
          Loading…
        </p>
      )}
      {report.data && (
        <>
          <ScorecardCard card={report.data.scorecard} />
          <p class="muted small">
            Report of {formatDateTime(report.data.generated_epoch)}, last {report.data.window_days} days.
          </p>
          {report.data.zones.length === 0 && <p>No zones are configured.</p>}
          {report.data.zones.map((entry) => (
            <section class="card" key={entry.slug} aria-labelledby={`${id}-${entry.slug}`}>
              <TuningEntry
                entry={entry}
                windowDays={report.data?.window_days ?? days}
                onChanged={report.reload}
                heading={
                  <h2 id={`${id}-${entry.slug}`}>
                    <Link to={`zones/${entry.slug}`}>{entry.display_name}</Link>
                  </h2>
                }
              />
            </section>
          ))}
        </>
      )}
    </div>
  );
}
