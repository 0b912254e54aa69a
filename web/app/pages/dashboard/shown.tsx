import { UNKNOWN } from '../../lib/units';

/**
 * A formatted value, or the unknown mark: "—" on screen (class `unknown`) and
 * "unknown" for screen readers. Never a 0 in place of a missing value.
 */
export function Shown({ text }: { text: string | null | undefined }) {
  if (text === null || text === undefined || text === UNKNOWN || text === '')
    return (
      <>
        <span class="unknown" aria-hidden="true">
          {UNKNOWN}
        </span>
        <span class="visually-hidden">unknown</span>
      </>
    );
  return <>{text}</>;
}
