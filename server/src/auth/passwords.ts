import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Owner passwords: scrypt (memory-hard, in node itself) with a per-password
 * salt, stored as `scrypt$N$r$p$salt$hash` so the cost can rise later without
 * breaking stored hashes, and compared in constant time.
 */

const COST = { N: 16384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** scrypt needs 128 * N * r bytes; leave headroom. */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { ...options, maxmem: MAX_MEMORY }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** False for a wrong password or a stored value this build cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  let key: Buffer;
  try {
    key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  } catch {
    // Cost parameters node refuses (not a power of two, over the memory cap, not numbers).
    return false;
  }
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of nothing in particular: verifying against it costs what a real check costs (no user enumeration by timing). */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(username: string, password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return `the password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  }
  if (password.length > PASSWORD_MAX_LENGTH)
    return `the password may have at most ${PASSWORD_MAX_LENGTH} characters`;
  if (new Set(password).size < 4) return 'the password needs at least 4 different characters';
  if (username && password.toLowerCase().includes(username.toLowerCase())) {
    return 'the password may not contain the username';
  }
  return null;
}
