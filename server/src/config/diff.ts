import { formatPath, isPlainObject, type JsonValue } from './json-walk';

/**
 * The paths at which two config documents differ (`$.zones.front.species`),
 * for previews that must say what will change without showing any value (a
 * changed secret is listed by its path only). Arrays of entries with an `id`
 * (sources, controllers) are compared by id, so a reordering is no change.
 */

const MAX_PATHS = 200;

export function changedPaths(before: JsonValue | null, after: JsonValue | null): string[] {
  const out: string[] = [];
  walk(before ?? null, after ?? null, [], out);
  return out.slice(0, MAX_PATHS);
}

function walk(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  path: (string | number)[],
  out: string[],
): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
      walk(a[key], b[key], [...path, key], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && byId(a) && byId(b)) {
    const ids = new Set([...a, ...b].map((entry) => (entry as { id: string }).id));
    for (const id of ids) {
      const find = (list: JsonValue[]) => list.find((entry) => (entry as { id: string }).id === id);
      walk(find(a), find(b), [...path, id], out);
    }
    return;
  }
  if (JSON.stringify(a ?? null) !== JSON.stringify(b ?? null)) out.push(formatPath(path));
}

function byId(list: JsonValue[]): boolean {
  return list.every((entry) => isPlainObject(entry) && typeof entry.id === 'string');
}
