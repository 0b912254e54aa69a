import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time string equality for shared secrets (gateway PASSKEY, webhook
 * path secret). Both sides are hashed first so the comparison takes the same
 * time whatever the lengths; an empty expected secret never matches.
 */
export function secretEquals(given: string, expected: string): boolean {
  if (expected === '') return false;
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
