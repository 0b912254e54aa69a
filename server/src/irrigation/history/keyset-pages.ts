/**
 * Reading a window page by page instead of all at once, so a 10-year history
 * (60,000 runs) is never held in memory. Each page is a keyset query (the
 * last row is the cursor of the next, no OFFSET over the window) that is read
 * to the end before the caller yields to the event loop: while a
 * better-sqlite3 iterator is open the connection is busy, and the engine and
 * the weather service write through the same connection.
 */

export const PAGE_ROWS = 1000;

/** Body bytes as text or as a buffer (SQLite-built pages arrive as UTF-8 buffers). */
export type Chunk = string | Buffer;

/** One page of rows rendered as JSON joined by commas (empty when no rows); `next` is null after the last page. */
export interface JsonPage<Cursor> {
  json: Chunk;
  next: Cursor | null;
}

export type FetchJsonPage<Cursor> = (after: Cursor, limit: number) => JsonPage<Cursor>;

/** Reads up to `limit` rows after the cursor; every row is the cursor of the rows after it. */
export type FetchPage<Cursor, Row extends Cursor> = (after: Cursor, limit: number) => Iterable<Row>;

/** A page of row objects (read through .iterate()) as a JsonPage: a full page's last row is the next cursor. */
export function renderPage<Cursor, Row extends Cursor>(
  rows: Iterable<Row>,
  limit: number,
  render: (row: Row) => string,
): JsonPage<Cursor> {
  const texts: string[] = [];
  let last: Row | null = null;
  for (const row of rows) {
    texts.push(render(row));
    last = row;
  }
  return { json: texts.join(','), next: texts.length < limit ? null : last };
}

/** Each page's rows joined by commas, a comma between pages. */
export function* jsonArrayPages<Cursor>(
  fetch: FetchJsonPage<Cursor>,
  start: Cursor,
  pageRows: number = PAGE_ROWS,
): Generator<Chunk> {
  let after: Cursor | null = start;
  let first = true;
  while (after !== null) {
    const page = fetch(after, pageRows);
    if (page.json.length === 0) return;
    if (!first) yield ',';
    yield page.json;
    first = false;
    after = page.next;
  }
}

/** Row-at-a-time reading over pages, for merging two ordered sources (peek, then take). */
export class PagedRows<Cursor, Row extends Cursor> {
  private page: Row[] = [];
  private index = 0;
  private exhausted = false;
  private after: Cursor;

  constructor(
    private readonly fetch: FetchPage<Cursor, Row>,
    start: Cursor,
    private readonly pageRows: number = PAGE_ROWS,
  ) {
    this.after = start;
  }

  peek(): Row | undefined {
    if (this.index >= this.page.length && !this.exhausted) this.refill();
    return this.page[this.index];
  }

  take(): Row | undefined {
    const row = this.peek();
    if (row !== undefined) this.index += 1;
    return row;
  }

  private refill(): void {
    this.page = Array.from(this.fetch(this.after, this.pageRows));
    this.index = 0;
    if (this.page.length < this.pageRows) this.exhausted = true;
    const last = this.page.at(-1);
    if (last !== undefined) this.after = last;
  }
}
