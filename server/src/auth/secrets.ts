import { createHash, randomBytes } from 'node:crypto';

/**
 * Session and API token secrets: 32 random bytes, shown once; only their
 * SHA-256 is stored (high-entropy secrets need no slow hash, and a fast one
 * keeps every authenticated request cheap).
 */

export function newSecret(prefix: 'rcs' | 'rct'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
