/**
 * A line diff (longest common subsequence) for comparing config snapshots
 * with the current config, grouped into hunks with context like `diff -u`.
 * Pure, no DOM.
 */

export type DiffOp = 'same' | 'add' | 'del';

export interface DiffLine {
  op: DiffOp;
  text: string;
  /** 1-based line number in the old text (null for added lines). */
  oldNo: number | null;
  /** 1-based line number in the new text (null for removed lines). */
  newNo: number | null;
}

export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: DiffLine[];
}

/** Above this many cells the LCS table is skipped: the middle becomes one delete-then-add block. */
const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every line of both texts in order, each marked same, del (only in `before`) or add (only in `after`). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }

  const out: DiffLine[] = [];
  for (let i = 0; i < start; i += 1)
    out.push({ op: 'same', text: a[i] as string, oldNo: i + 1, newNo: i + 1 });

  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n > 0 || m > 0) {
    if (n === 0 || m === 0 || n * m > MAX_CELLS) {
      midA.forEach((text, i) => out.push({ op: 'del', text, oldNo: start + i + 1, newNo: null }));
      midB.forEach((text, j) => out.push({ op: 'add', text, oldNo: null, newNo: start + j + 1 }));
    } else {
      // lcs[i][j] = LCS length of midA[i..] and midB[j..], row-major in one array.
      const width = m + 1;
      const lcs = new Uint32Array((n + 1) * width);
      for (let i = n - 1; i >= 0; i -= 1) {
        for (let j = m - 1; j >= 0; j -= 1) {
          lcs[i * width + j] =
            midA[i] === midB[j]
              ? (lcs[(i + 1) * width + j + 1] as number) + 1
              : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
        }
      }
      let i = 0;
      let j = 0;
      while (i < n || j < m) {
        if (i < n && j < m && midA[i] === midB[j]) {
          out.push({ op: 'same', text: midA[i] as string, oldNo: start + i + 1, newNo: start + j + 1 });
          i += 1;
          j += 1;
        } else if (
          j >= m ||
          (i < n && (lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number))
        ) {
          out.push({ op: 'del', text: midA[i] as string, oldNo: start + i + 1, newNo: null });
          i += 1;
        } else {
          out.push({ op: 'add', text: midB[j] as string, oldNo: null, newNo: start + j + 1 });
          j += 1;
        }
      }
    }
  }

  for (let k = 0; k < a.length - endA; k += 1) {
    out.push({ op: 'same', text: a[endA + k] as string, oldNo: endA + k + 1, newNo: endB + k + 1 });
  }
  return out;
}

/** The changed lines with `context` unchanged lines around them; changes closer than 2 x context share a hunk. */
export function toHunks(lines: readonly DiffLine[], context = 3): Hunk[] {
  const changed = lines.map((line, i) => (line.op === 'same' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return [];
  const ranges: [number, number][] = [];
  for (const i of changed) {
    const from = Math.max(0, i - context);
    const to = Math.min(lines.length - 1, i + context);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges.map(([from, to]) => {
    const slice = lines.slice(from, to + 1);
    const olds = slice.filter((l) => l.oldNo !== null);
    const news = slice.filter((l) => l.newNo !== null);
    return {
      oldStart: olds[0]?.oldNo ?? previousNo(lines, from, 'oldNo'),
      oldCount: olds.length,
      newStart: news[0]?.newNo ?? previousNo(lines, from, 'newNo'),
      newCount: news.length,
      lines: slice,
    };
  });
}

/** `diff -u` numbering of an empty side: the line before the hunk (0 at the top). */
function previousNo(lines: readonly DiffLine[], index: number, side: 'oldNo' | 'newNo'): number {
  for (let i = index - 1; i >= 0; i -= 1) {
    const no = lines[i]?.[side];
    if (no !== null && no !== undefined) return no;
  }
  return 0;
}

export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.op === 'add') added += 1;
    else if (line.op === 'del') removed += 1;
  }
  return { added, removed };
}

/** The hunks as unified-diff text (`@@ -a,b +c,d @@`, then ` `, `-`, `+` lines). */
export function unifiedText(hunks: readonly Hunk[]): string {
  const out: string[] = [];
  for (const hunk of hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldCount} +${hunk.newStart},${hunk.newCount} @@`);
    for (const line of hunk.lines)
      out.push(`${line.op === 'add' ? '+' : line.op === 'del' ? '-' : ' '}${line.text}`);
  }
  return out.join('\n');
}
