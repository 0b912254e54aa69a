import type { Store } from '../../store/store';
import { EPOCH_CURSOR_START } from '../../store/decisions';
import { RUN_CURSOR_START } from '../../store/runs';
import { jsonArrayPages, renderPage, type Chunk } from './keyset-pages';
import { toDecisionRecord } from './decision-record';
import type { HistoryBounds } from './window';

/**
 * The JSON bodies of /irrigation/history, /irrigation/decisions and the json
 * export, produced as chunks page by page (see keyset-pages.ts). Run records
 * and daily decisions are rendered to JSON by SQLite, one UTF-8 buffer per
 * page (the repositories' *JsonPage methods; a run's record is stored text
 * since migration 8): building 60,000 row objects in JS and stringifying them
 * took three times as long, mostly in garbage collection under the service's
 * 1 MB young generation.
 */

/**
 * Rows per page of a JSON body: about 1.2 MB of runs in one buffer. Pages of
 * 5,000 measured about 10 % faster than pages of 1,000 for the whole ledger;
 * memory stays one page per request.
 */
export const JSON_PAGE_ROWS = 5000;

type Section = (store: Store, bounds: HistoryBounds, pageRows: number) => Generator<Chunk>;

function* runs(store: Store, { from_epoch, to_epoch }: HistoryBounds, pageRows: number): Generator<Chunk> {
  yield* jsonArrayPages(
    (after, limit) => store.runs.windowJsonPage(from_epoch, to_epoch, after, limit),
    RUN_CURSOR_START,
    pageRows,
  );
}

function* daily(store: Store, { from_epoch, to_epoch }: HistoryBounds, pageRows: number): Generator<Chunk> {
  yield* jsonArrayPages(
    (after, limit) => store.decisions.dailyJsonPage(from_epoch, to_epoch, after, limit),
    EPOCH_CURSOR_START,
    pageRows,
  );
}

function* decisions(
  store: Store,
  { from_epoch, to_epoch }: HistoryBounds,
  pageRows: number,
): Generator<Chunk> {
  yield* jsonArrayPages(
    (after, limit) =>
      renderPage(store.decisions.transitionsPage(from_epoch, to_epoch, after, limit), limit, (row) =>
        JSON.stringify(toDecisionRecord(row)),
      ),
    EPOCH_CURSOR_START,
    pageRows,
  );
}

/** `{"from_epoch":..,"to_epoch":..,"<name>":[...],...}` with each named section streamed in turn. */
function* windowObject(
  store: Store,
  bounds: HistoryBounds,
  sections: [string, Section][],
  pageRows: number,
): Generator<Chunk> {
  yield `{"from_epoch":${bounds.from_epoch},"to_epoch":${bounds.to_epoch}`;
  for (const [name, section] of sections) {
    yield `,${JSON.stringify(name)}:[`;
    yield* section(store, bounds, pageRows);
    yield ']';
  }
  yield '}';
}

/** Spec 2.5 "History window": `{from_epoch, to_epoch, runs, daily}`. */
export function historyWindowChunks(
  store: Store,
  bounds: HistoryBounds,
  pageRows = JSON_PAGE_ROWS,
): Generator<Chunk> {
  return windowObject(
    store,
    bounds,
    [
      ['runs', runs],
      ['daily', daily],
    ],
    pageRows,
  );
}

/** GET /irrigation/decisions: `{from_epoch, to_epoch, decisions}` (verdict transitions). */
export function decisionsChunks(
  store: Store,
  bounds: HistoryBounds,
  pageRows = JSON_PAGE_ROWS,
): Generator<Chunk> {
  return windowObject(store, bounds, [['decisions', decisions]], pageRows);
}

/** The json export: `{from_epoch, to_epoch, runs, decisions}`. */
export function exportJsonChunks(
  store: Store,
  bounds: HistoryBounds,
  pageRows = JSON_PAGE_ROWS,
): Generator<Chunk> {
  return windowObject(
    store,
    bounds,
    [
      ['runs', runs],
      ['decisions', decisions],
    ],
    pageRows,
  );
}
