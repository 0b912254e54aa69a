import type { Ref } from 'preact';
import { humanise, parsePath, type PlacedEntry, type ReportEntry } from '../../components/schema-form-model';

/** `$.zones.front_lawn.max_run_minutes` as "Zones › Front lawn › Max run minutes". */
export function pathWords(path: string): string {
  const parts = parsePath(path);
  if (!parts || parts.length === 0) return 'The whole configuration';
  return parts.map((p) => (typeof p === 'number' ? `#${p + 1}` : humanise(p))).join(' › ');
}

interface Props {
  title: string;
  entries: (PlacedEntry | (ReportEntry & { severity: 'error' | 'warning'; field?: string | null }))[];
  /** Moves focus to the field a placed entry names. */
  onGo?: (field: string) => void;
  /** The summary element, to move focus to it after a refused save. */
  innerRef?: Ref<HTMLDivElement>;
}

/**
 * The summary of a refused save (role="alert"): every error with where it is
 * and, when the form shows that field, a button that goes to it. Warnings
 * (never blocking) follow.
 */
export function ValidationSummary({ title, entries, onGo, innerRef }: Props) {
  const errors = entries.filter((e) => e.severity === 'error');
  const warnings = entries.filter((e) => e.severity === 'warning');
  return (
    <div class="notice notice-error settings-summary" role="alert" tabIndex={-1} ref={innerRef}>
      <strong>{title}</strong>
      {errors.length > 0 && (
        <ul>
          {errors.map((e, i) => (
            <EntryItem key={i} entry={e} onGo={onGo} />
          ))}
        </ul>
      )}
      {warnings.length > 0 && (
        <>
          <p class="settings-summary-sub">Warnings (they do not block a save):</p>
          <ul>
            {warnings.map((e, i) => (
              <EntryItem key={i} entry={e} onGo={onGo} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function EntryItem({
  entry,
  onGo,
}: {
  entry: Props['entries'][number];
  onGo?: ((field: string) => void) | undefined;
}) {
  const field = entry.field ?? null;
  return (
    <li>
      <span class="settings-summary-where">{pathWords(entry.path)}</span>: {entry.message}{' '}
      <code class="muted">{entry.code}</code>
      {field && onGo && (
        <>
          {' '}
          <button type="button" class="settings-linkish" onClick={() => onGo(field)}>
            Go to field
          </button>
        </>
      )}
    </li>
  );
}

/** Warnings of a successful save, shown with the "Saved" status. */
export function WarningList({ entries }: { entries: ReportEntry[] }) {
  if (entries.length === 0) return null;
  return (
    <div class="notice notice-warn">
      <strong>Saved with {entries.length === 1 ? 'a warning' : `${entries.length} warnings`}:</strong>
      <ul>
        {entries.map((e, i) => (
          <li key={i}>
            <span class="settings-summary-where">{pathWords(e.path)}</span>: {e.message}{' '}
            <code class="muted">{e.code}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
