/**
 * Plain code-unit ordering of strings (ids, kinds, serials). Not
 * `localeCompare`: that builds an ICU collator on first use, about 3 MB of
 * resident memory for an ordering that ids do not need.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
