import { scryptSync } from 'node:crypto';
import {
  decoyHash,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  verifyPassword,
} from '../../server/src/auth/passwords';
import { hashSecret, newSecret } from '../../server/src/auth/secrets';

const PASSWORD = 'correct-Horse-battery-9';

describe('hashPassword', () => {
  it('stores scrypt$N$r$p$salt$key with a 16-byte salt and a 32-byte key', async () => {
    const stored = await hashPassword(PASSWORD);
    const parts = stored.split('$');
    expect(parts).toHaveLength(6);
    const [scheme, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
    expect([scheme, n, r, p]).toEqual(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(stored).not.toContain(PASSWORD);
  });

  it('salts every hash: the same password hashes differently twice', async () => {
    const [a, b] = await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)]);
    expect(a).not.toBe(b);
    expect(a.split('$')[4]).not.toBe(b.split('$')[4]);
  });
});

describe('verifyPassword', () => {
  let stored: string;
  beforeAll(async () => {
    stored = await hashPassword(PASSWORD);
  });

  it('accepts the right password and refuses wrong ones', async () => {
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    for (const wrong of [
      'correct-Horse-battery-8',
      'correct-horse-battery-9',
      `${PASSWORD} `,
      '',
      PASSWORD.slice(1),
    ]) {
      expect(await verifyPassword(wrong, stored)).toBe(false);
    }
  });

  it('compares NFKC-normalised text (a ligature equals its letters)', async () => {
    const ligature = await hashPassword('of\uFB01ce-Garden-12');
    expect(await verifyPassword('office-Garden-12', ligature)).toBe(true);
  });

  it('honours the cost parameters stored with the hash', async () => {
    // A hash made at another cost (an older build) verifies with its own parameters.
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 });
    const cheap = ['scrypt', 1024, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    expect(await verifyPassword(PASSWORD, cheap)).toBe(true);
    expect(await verifyPassword(PASSWORD, cheap.replace('$1024$', '$2048$'))).toBe(false);
    expect(await verifyPassword(PASSWORD, stored.replace('$16384$', '$1024$'))).toBe(false);
  });

  it('returns false, without throwing, for a stored key of the wrong length (the constant-time compare needs equal lengths)', async () => {
    const [scheme, n, r, p, salt, key] = stored.split('$') as string[];
    const short = Buffer.from(key as string, 'base64')
      .subarray(0, 16)
      .toString('base64');
    const long = Buffer.concat([Buffer.from(key as string, 'base64'), Buffer.alloc(1)]).toString('base64');
    for (const wrongLength of [short, long]) {
      const value = [scheme, n, r, p, salt, wrongLength].join('$');
      await expect(verifyPassword(PASSWORD, value)).resolves.toBe(false);
    }
  });

  it.each([
    ['another scheme', 'bcrypt$16384$8$1$c2FsdA==$a2V5'],
    ['missing parts', 'scrypt$16384$8$1'],
    ['empty', ''],
    ['plaintext', PASSWORD],
    ['N not a power of two', 'scrypt$1000$8$1$c2FsdHNhbHRzYWx0c2FsdA==$a2V5'],
    ['N not a number', 'scrypt$abc$8$1$c2FsdHNhbHRzYWx0c2FsdA==$a2V5'],
    ['cost over the memory cap', 'scrypt$1048576$8$1$c2FsdHNhbHRzYWx0c2FsdA==$a2V5'],
  ])('returns false for a stored value it cannot read (%s)', async (_label, value) => {
    await expect(verifyPassword(PASSWORD, value)).resolves.toBe(false);
  });
});

describe('decoyHash', () => {
  it('is one real scrypt hash, reused, that ordinary passwords do not match', async () => {
    const decoy = await decoyHash();
    expect(await decoyHash()).toBe(decoy);
    expect(decoy).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('', decoy)).toBe(false);
    expect(await verifyPassword(PASSWORD, decoy)).toBe(false);
  });
});

describe('passwordProblem', () => {
  it.each([
    ['9 characters', 'owner', 'Ab3-xyz-q', `the password needs at least ${PASSWORD_MIN_LENGTH} characters`],
    ['empty', 'owner', '', 'the password needs at least 10 characters'],
    [
      'over the maximum',
      'owner',
      'aB3-'.repeat(256) + 'x',
      `the password may have at most ${PASSWORD_MAX_LENGTH} characters`,
    ],
    ['3 different characters', 'owner', 'abcabcabcabc', 'the password needs at least 4 different characters'],
    ['contains the username', 'owner', 'my-owner-pass-1', 'the password may not contain the username'],
    [
      'contains the username in other case',
      'Owner',
      'my-OWNER-pass-1',
      'the password may not contain the username',
    ],
  ])('refuses a weak password: %s', (_label, username, password, message) => {
    expect(passwordProblem(username, password)).toBe(message);
  });

  it.each([
    ['exactly the minimum length', 'owner', 'Ab3-xyz-qr'],
    ['exactly the maximum length', 'owner', 'aB3-'.repeat(256)],
    ['4 different characters', 'owner', 'abcdabcdabcd'],
    ['no username to compare', '', 'Ab3-xyz-qr'],
  ])('accepts a password: %s', (_label, username, password) => {
    expect(PASSWORD_MIN_LENGTH).toBe(10);
    expect(PASSWORD_MAX_LENGTH).toBe(1024);
    expect(passwordProblem(username, password)).toBeNull();
  });
});

describe('session and token secrets', () => {
  it('are prefixed, 32 random bytes, and stored as their SHA-256 hex', () => {
    const session = newSecret('rcs');
    const token = newSecret('rct');
    expect(session).toMatch(/^rcs_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
    expect(newSecret('rct')).not.toBe(token);
    expect(hashSecret(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(token)).toBe(hashSecret(token));
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
