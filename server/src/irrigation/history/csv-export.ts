import { EPOCH_CURSOR_START } from '../../store/decisions';
import { RUN_CURSOR_START } from '../../store/runs';
import type { Store } from '../../store/store';
import { CRLF, CSV_HEADER, decisionCsvLine, runCsvLine } from './csv';
import { PagedRows, PAGE_ROWS } from './keyset-pages';
import type { HistoryBounds } from './window';

/**
 * The csv export as text chunks of about `pageRows` lines: runs and verdict
 * changes merged in time order (a verdict change before a run at the same
 * second). Both sources are read a keyset page at a time, so memory holds
 * at most one page of each, whatever the window.
 */
export function* exportCsvChunks(
  store: Store,
  bounds: HistoryBounds,
  pageRows = PAGE_ROWS,
): Generator<string> {
  const { from_epoch, to_epoch } = bounds;
  const runs = new PagedRows(
    (after, limit) => store.runs.iterateWindowPage(from_epoch, to_epoch, after, limit),
    RUN_CURSOR_START,
    pageRows,
  );
  const decisions = new PagedRows(
    (after, limit) => store.decisions.transitionsPage(from_epoch, to_epoch, after, limit),
    EPOCH_CURSOR_START,
    pageRows,
  );
  let lines: string[] = [CSV_HEADER + CRLF];
  for (;;) {
    const run = runs.peek();
    const decision = decisions.peek();
    if (decision !== undefined && (run === undefined || decision.epoch <= run.start_epoch)) {
      lines.push(decisionCsvLine(decision));
      decisions.take();
    } else if (run !== undefined) {
      lines.push(runCsvLine(run));
      runs.take();
    } else {
      break;
    }
    if (lines.length >= pageRows) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join('');
}
