import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api, ApiFailure } from '../../lib/api';
import {
  appliedMessage,
  applyBody,
  fieldLabel,
  splitMuted,
  STATUS_LABELS,
  valueText,
  type ApplyResult,
  type ZoneEntry,
} from './tuning-model';

/**
 * One zone's tuning entry: its lines, the recommendation with Apply and
 * Dismiss (snooze 30 days or for good), and the muted annotation of a
 * silenced suggestion with "Show again". Used by the zone page and the
 * tuning page; `onChanged` reloads the report.
 */
export function TuningEntry({
  entry,
  windowDays,
  onChanged,
  heading,
}: {
  entry: ZoneEntry;
  windowDays: number;
  onChanged: () => void;
  heading?: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<{ title: string; error: unknown } | null>(null);
  const rec = entry.recommendation;
  const { lines, muted } = splitMuted(entry);

  const call = async (title: string, run: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      setStatus(await run());
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_recommendation') {
        setStatus('This suggestion no longer holds with the latest evidence; the report was refreshed.');
      } else setError({ title, error: err });
    } finally {
      setBusy(false);
      onChanged();
    }
  };

  const apply = () =>
    rec &&
    call(`Could not apply the suggestion for ${entry.display_name}`, async () =>
      appliedMessage(
        await api<ApplyResult>('config/zones/apply', {
          method: 'POST',
          json: applyBody(entry.slug, rec, windowDays),
        }),
      ),
    );
  const dismiss = (kind: 'snooze' | 'permanent') =>
    rec &&
    call(`Could not dismiss the suggestion for ${entry.display_name}`, async () => {
      await api('irrigation/tuning/dismiss', {
        method: 'POST',
        json: { zone_slug: entry.slug, field: rec.field, recommendation_id: rec.id, kind },
      });
      return kind === 'snooze'
        ? 'Snoozed for 30 days.'
        : `${fieldLabel(rec.field)} suggestions dismissed for good.`;
    });
  const undismiss = (field: string) =>
    call(`Could not restore the suggestion for ${entry.display_name}`, async () => {
      const { removed } = await api<{ removed: number }>('irrigation/tuning/undismiss', {
        method: 'POST',
        json: { zone_slug: entry.slug, field },
      });
      return removed > 0 ? `${fieldLabel(field)} suggestions are shown again.` : 'Nothing was dismissed.';
    });

  return (
    <div class="tuning-entry" data-zone={entry.slug} data-status={entry.status}>
      <div class="spread">
        {heading}
        <span
          class={`badge ${entry.status === 'recommendation' ? 'warn' : entry.status === 'ok' ? 'ok' : ''}`}
        >
          {STATUS_LABELS[entry.status]}
        </span>
      </div>
      {rec && (
        <div class="recommendation" data-field={rec.field}>
          <p class="recommendation-headline">{rec.headline}</p>
          <p class="small">
            {fieldLabel(rec.field)}: {valueText(rec.field, rec.current_value)} →{' '}
            <strong>{valueText(rec.field, rec.suggested_value)}</strong>{' '}
            <span class="muted">({rec.confidence} confidence)</span>
          </p>
          <details>
            <summary>Evidence</summary>
            <ul class="evidence">
              {rec.evidence.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </details>
          <div class="row">
            <button type="button" class="primary" disabled={busy} onClick={() => void apply()}>
              Apply
            </button>
            <button type="button" disabled={busy} onClick={() => void dismiss('snooze')}>
              Dismiss for 30 days
            </button>
            <button type="button" disabled={busy} onClick={() => void dismiss('permanent')}>
              Don’t suggest again
            </button>
          </div>
        </div>
      )}
      <ul class="tuning-lines">
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {muted && <p class="tuning-muted muted small">{muted}</p>}
      {entry.dismissed_fields.length > 0 && (
        <div class="row">
          {entry.dismissed_fields.map((field) => (
            <button type="button" disabled={busy} key={field} onClick={() => void undismiss(field)}>
              Show {fieldLabel(field).toLowerCase()} suggestions again
            </button>
          ))}
        </div>
      )}
      <p class="tuning-status" role="status">
        {status}
      </p>
      {error && <ErrorNotice error={error.error} title={error.title} />}
    </div>
  );
}
