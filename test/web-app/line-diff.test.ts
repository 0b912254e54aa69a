import {
  diffLines,
  diffStats,
  splitLines,
  toHunks,
  unifiedText,
  type DiffLine,
} from '../../web/app/pages/settings/line-diff';

/** Rebuilds both sides from a diff: every diff must reproduce its inputs exactly. */
function sides(lines: DiffLine[]): { before: string[]; after: string[] } {
  return {
    before: lines.filter((l) => l.op !== 'add').map((l) => l.text),
    after: lines.filter((l) => l.op !== 'del').map((l) => l.text),
  };
}

const BEFORE = `schema_version = 2

[deployment]
units = "imperial"
timezone = "America/New_York"

[deployment.location]
lat = 40.7
lon = -74.0

[zones.front_lawn]
display_name = "Front lawn"
max_run_minutes = 30
`;

const AFTER = `schema_version = 2

[deployment]
units = "metric"
timezone = "America/New_York"

[deployment.location]
lat = 41.25
lon = -74.0

[zones.front_lawn]
display_name = "Front lawn"
max_run_minutes = 30
species = "bermuda"
`;

describe('splitLines', () => {
  it('splits on any newline and ignores one trailing newline', () => {
    expect(splitLines('a\r\nb\nc\n')).toEqual(['a', 'b', 'c']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
    expect(splitLines('')).toEqual([]);
  });
});

describe('diffLines', () => {
  it('marks nothing when the texts are equal', () => {
    const lines = diffLines(BEFORE, BEFORE);
    expect(lines.every((l) => l.op === 'same')).toBe(true);
    expect(toHunks(lines)).toEqual([]);
  });

  it('finds changed, added and kept lines with both line numbers', () => {
    const lines = diffLines(BEFORE, AFTER);
    expect(diffStats(lines)).toEqual({ added: 3, removed: 2 });
    expect(lines.filter((l) => l.op === 'del').map((l) => [l.text, l.oldNo])).toEqual([
      ['units = "imperial"', 4],
      ['lat = 40.7', 8],
    ]);
    expect(lines.filter((l) => l.op === 'add').map((l) => [l.text, l.newNo])).toEqual([
      ['units = "metric"', 4],
      ['lat = 41.25', 8],
      ['species = "bermuda"', 14],
    ]);
    const kept = lines.find((l) => l.text === 'lon = -74.0');
    expect(kept).toMatchObject({ op: 'same', oldNo: 9, newNo: 9 });
    expect(sides(lines)).toEqual({ before: splitLines(BEFORE), after: splitLines(AFTER) });
  });

  it('is minimal: a moved block costs only its lines', () => {
    const lines = diffLines('a\nb\nc\nd\ne', 'a\nc\nd\ne\nb');
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
    expect(sides(lines)).toEqual({ before: ['a', 'b', 'c', 'd', 'e'], after: ['a', 'c', 'd', 'e', 'b'] });
  });

  it('handles one side empty', () => {
    expect(diffLines('', 'x\ny').map((l) => l.op)).toEqual(['add', 'add']);
    expect(diffLines('x\ny', '').map((l) => [l.op, l.oldNo])).toEqual([
      ['del', 1],
      ['del', 2],
    ]);
  });

  it('reproduces both sides for many random edits', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 200; round += 1) {
      const a = Array.from({ length: Math.floor(random() * 12) }, () =>
        'abcd'.charAt(Math.floor(random() * 4)),
      );
      const b = Array.from({ length: Math.floor(random() * 12) }, () =>
        'abcd'.charAt(Math.floor(random() * 4)),
      );
      const lines = diffLines(a.join('\n'), b.join('\n'));
      expect(sides(lines)).toEqual({ before: a, after: b });
      // Line numbers count up on each side.
      expect(lines.filter((l) => l.oldNo !== null).map((l) => l.oldNo)).toEqual(a.map((_, i) => i + 1));
      expect(lines.filter((l) => l.newNo !== null).map((l) => l.newNo)).toEqual(b.map((_, i) => i + 1));
    }
  });
});

describe('toHunks', () => {
  it('groups changes with context like diff -u', () => {
    const hunks = toHunks(diffLines(BEFORE, AFTER), 1);
    expect(hunks.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([
      [3, 3, 3, 3],
      [7, 3, 7, 3],
      [13, 1, 13, 2],
    ]);
    expect(unifiedText(hunks)).toBe(
      [
        '@@ -3,3 +3,3 @@',
        ' [deployment]',
        '-units = "imperial"',
        '+units = "metric"',
        ' timezone = "America/New_York"',
        '@@ -7,3 +7,3 @@',
        ' [deployment.location]',
        '-lat = 40.7',
        '+lat = 41.25',
        ' lon = -74.0',
        '@@ -13,1 +13,2 @@',
        ' max_run_minutes = 30',
        '+species = "bermuda"',
      ].join('\n'),
    );
  });

  it('merges changes whose context overlaps', () => {
    // Context 2: the units and lat changes share a hunk, the added species line is apart.
    const two = toHunks(diffLines(BEFORE, AFTER), 2);
    expect(two).toHaveLength(2);
    expect(two[0]?.lines.filter((l) => l.op !== 'same')).toHaveLength(4);
    // Context 3 (the default): everything is one hunk.
    expect(toHunks(diffLines(BEFORE, AFTER))).toHaveLength(1);
  });

  it('numbers an insertion at the top from line 0', () => {
    const hunks = toHunks(diffLines('a\nb', 'x\na\nb'), 0);
    expect(hunks.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([[0, 0, 1, 1]]);
  });
});
