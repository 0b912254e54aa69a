/**
 * Nesting limits. Config validation, secret restoration, migration and zod
 * all walk documents recursively; JSON nested a couple of thousand levels
 * deep (4 KB of brackets) overflowed the stack and answered 500. No document
 * this service takes is nested more than a dozen levels, so anything past
 * MAX_NESTING is refused before a walker sees it.
 */
export const MAX_NESTING = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** JSON text whose objects and arrays nest deeper than `max` (strings skipped). One pass, no parse. */
export function jsonTextTooDeep(text: string, max = MAX_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/** A parsed value whose objects and arrays nest deeper than `max`. Iterative: it cannot overflow itself. */
export function valueTooDeep(value: unknown, max = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
