import { createECDH, createPrivateKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write';
import { REPOSITORY } from '../core/version';

/**
 * The VAPID keypair Web Push signs with (RFC 8292). Either the config names it
 * (`notifications.web_push.vapid_private_path`, a PEM EC key or the raw
 * base64url key `web-push generate-vapid-keys` prints, with `vapid_public`),
 * or the service generates one at its first start and keeps it in
 * `<data dir>/private/vapid.json` (directory 0700, file 0600). Everything in
 * `private/` is secret: backups exclude the directory (spec 4.8) and nothing
 * in it is ever served, logged or put in diagnostics. Keys are P-256, made
 * with node:crypto (web-push itself loads on the first send).
 */

export const PRIVATE_DIR = 'private';
export const VAPID_FILE = 'vapid.json';

export interface WebPushSettings {
  vapid_public?: string | null;
  vapid_private_path?: string | null;
  vapid_subject?: string | null;
}

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url (what the browser's applicationServerKey takes). */
  publicKey: string;
  /** The 32-byte private scalar, base64url. */
  privateKey: string;
  /** `mailto:` or `https:` contact the push services may use. */
  subject: string;
  source: 'config' | 'generated';
}

export type VapidLoad = { keys: VapidKeys; note: null } | { keys: null; note: string };

/** Without `vapid_subject`, the project's address (push services want an https: or mailto: contact). */
export const DEFAULT_SUBJECT = REPOSITORY;

export function loadVapidKeys(settings: WebPushSettings | undefined, dataDir: string): VapidLoad {
  const subject = settings?.vapid_subject?.trim() || DEFAULT_SUBJECT;
  if (!validSubject(subject)) {
    return { keys: null, note: 'notifications.web_push.vapid_subject must be a mailto: or https: URL' };
  }
  try {
    if (settings?.vapid_private_path)
      return fromConfig(settings, settings.vapid_private_path, subject, dataDir);
    if (settings?.vapid_public) {
      return { keys: null, note: 'notifications.web_push.vapid_public needs vapid_private_path beside it' };
    }
    return { keys: { ...generatedPair(dataDir), subject, source: 'generated' }, note: null };
  } catch (err) {
    return { keys: null, note: `the VAPID keypair could not be loaded: ${(err as Error).message}` };
  }
}

function fromConfig(settings: WebPushSettings, path: string, subject: string, dataDir: string): VapidLoad {
  const file = isAbsolute(path) ? path : join(dataDir, path);
  const privateKey = privateScalar(readFileSync(file, 'utf8'));
  const derived = publicKeyOf(privateKey);
  const configured = settings.vapid_public?.trim();
  if (configured && configured.replace(/=+$/, '') !== derived) {
    return { keys: null, note: 'notifications.web_push.vapid_public does not belong to the private key' };
  }
  return { keys: { publicKey: derived, privateKey, subject, source: 'config' }, note: null };
}

/** The private scalar from a PEM key (SEC1 or PKCS#8) or from base64url text. */
function privateScalar(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    const jwk = createPrivateKey(trimmed).export({ format: 'jwk' });
    if (jwk.crv !== 'P-256' || typeof jwk.d !== 'string') throw new Error('the key is not a P-256 EC key');
    return jwk.d;
  }
  if (!/^[A-Za-z0-9_-]{43}=?$/.test(trimmed))
    throw new Error('expected a PEM EC key or a base64url P-256 key');
  return trimmed.replace(/=+$/, '');
}

function publicKeyOf(privateKey: string): string {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
  return ecdh.getPublicKey().toString('base64url');
}

function generatedPair(dataDir: string): { publicKey: string; privateKey: string } {
  const dir = join(dataDir, PRIVATE_DIR);
  const file = join(dir, VAPID_FILE);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { private_key?: unknown };
    if (typeof stored.private_key === 'string') {
      const privateKey = privateScalar(stored.private_key);
      return { publicKey: publicKeyOf(privateKey), privateKey };
    }
  }
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  const pair = {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    // A scalar with leading zero bytes comes back shorter; VAPID wants all 32 bytes.
    privateKey: Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]).toString('base64url'),
  };
  // 0600 (writeFileAtomic's mode): the private key never leaves this directory.
  writeFileAtomic(file, `${JSON.stringify({ public_key: pair.publicKey, private_key: pair.privateKey })}\n`);
  return pair;
}

function validSubject(subject: string): boolean {
  try {
    const url = new URL(subject);
    return url.protocol === 'mailto:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
