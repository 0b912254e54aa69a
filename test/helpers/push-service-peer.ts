import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback Web Push service and the browser behind it. `subscribe()` makes
 * a subscription the way a browser's PushManager does (a P-256 key pair and
 * a 16-byte auth secret, tied to the application server key it was given)
 * and answers its PushSubscription JSON. A push message (RFC 8030) must carry:
 *
 * - `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292): the key must be the
 *   one the subscription was made with (else 403, as push services answer a
 *   key mismatch), the JWT ES256-signed by it, `aud` the push service's
 *   origin, `exp` in the future and at most 24 hours away, `sub` a mailto:
 *   or https: contact (else 403);
 * - `TTL` and `Content-Encoding: aes128gcm` (else 400);
 * - a body the "browser" can decrypt (RFC 8188 record, RFC 8291 keys) into
 *   the JSON payload it stores in `received`.
 *
 * Answers 201 Created, 404 for an unknown subscription, 410 for one marked
 * `gone`, or forced statuses from `failWith`. The endpoints are https URLs
 * as browsers give; `fetch` carries the service's requests to this plain
 * HTTP listener (the TLS hop is not what the test is about).
 */

export interface BrowserSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  endpoint: string;
  payload: Record<string, unknown>;
  claims: { aud: string; exp: number; sub: string };
  headers: SeenRequest['headers'];
}

interface Device {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  applicationServerKey: string;
}

export class PushServicePeer {
  readonly received: ReceivedPush[] = [];
  /** Why requests were refused (empty when every push was valid). */
  readonly refusals: string[] = [];
  readonly gone = new Set<string>();
  failWith: number[] = [];
  /** Statuses one endpoint answers before accepting (consumed one per request). */
  readonly failFor = new Map<string, number[]>();
  private readonly devices = new Map<string, Device>();
  private readonly peer = new LoopbackPeer((req) => this.handle(req));

  get origin(): string {
    return this.peer.baseUrl.replace(/^http:/, 'https:');
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  /** PushManager.subscribe({applicationServerKey}) as a browser answers it. */
  subscribe(applicationServerKey: string): BrowserSubscription {
    const id = randomBytes(9).toString('base64url');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    this.devices.set(id, { ecdh, auth, applicationServerKey });
    return {
      endpoint: `${this.origin}/wpush/${id}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    };
  }

  /** The service's fetch, with this peer's https origin carried to its plain listener. */
  readonly fetch: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(`${this.origin}/`))
      return fetch(`${this.peer.baseUrl}${url.slice(this.origin.length)}`, init);
    return fetch(input, init);
  };

  private handle(req: SeenRequest): PeerReply {
    const id = /^\/wpush\/([A-Za-z0-9_-]+)$/.exec(req.path)?.[1];
    const device = id ? this.devices.get(id) : undefined;
    if (req.method !== 'POST' || !id || !device) return this.refuse(404, `no subscription at ${req.path}`);
    if (this.gone.has(`${this.origin}/wpush/${id}`)) return this.refuse(410, 'subscription expired');
    const forced = this.failWith.shift() ?? this.failFor.get(`${this.origin}/wpush/${id}`)?.shift();
    if (forced) return { status: forced, body: '', contentType: 'text/plain' };
    try {
      const claims = this.checkVapid(req, device);
      if (!/^\d+$/.test(String(req.headers.ttl ?? ''))) return this.refuse(400, 'TTL header missing');
      if (req.headers['content-encoding'] !== 'aes128gcm') return this.refuse(400, 'not aes128gcm');
      const payload = JSON.parse(decrypt(req.rawBody, device).toString('utf8')) as Record<string, unknown>;
      this.received.push({ endpoint: `${this.origin}/wpush/${id}`, payload, claims, headers: req.headers });
      return { status: 201, body: '', contentType: 'text/plain' };
    } catch (err) {
      return this.refuse((err as { status?: number }).status ?? 400, (err as Error).message);
    }
  }

  private checkVapid(req: SeenRequest, device: Device): ReceivedPush['claims'] {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(req.headers.authorization ?? ''));
    if (!match) throw failure(401, 'Authorization is not `vapid t=..., k=...`');
    const [, jwt, key] = match as unknown as [string, string, string];
    if (key !== device.applicationServerKey)
      throw failure(403, 'VAPID key differs from the subscription key');
    const [head, body, signature] = jwt.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as {
      alg?: string;
      typ?: string;
    };
    if (header.alg !== 'ES256') throw failure(403, `JWT alg ${header.alg}`);
    const point = Buffer.from(key, 'base64url');
    const publicKey = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    const signed = verify(
      'sha256',
      Buffer.from(`${head}.${body}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) throw failure(403, 'JWT signature does not verify');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ReceivedPush['claims'];
    const now = Math.floor(Date.now() / 1000);
    if (claims.aud !== this.origin) throw failure(403, `JWT aud ${claims.aud} is not ${this.origin}`);
    if (!(claims.exp > now && claims.exp <= now + 86400))
      throw failure(403, `JWT exp ${claims.exp} out of range`);
    if (!/^(mailto:|https:)/.test(claims.sub ?? '')) throw failure(403, `JWT sub ${claims.sub}`);
    return claims;
  }

  private refuse(status: number, why: string): PeerReply {
    this.refusals.push(why);
    return { status, body: why, contentType: 'text/plain' };
  }
}

function failure(status: number, message: string): Error {
  return Object.assign(new Error(message), { status });
}

/** RFC 8291 keys and one RFC 8188 aes128gcm record, as the browser decrypts a push message. */
function decrypt(body: Buffer, device: Device): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] ?? 0;
  const serverPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65 || record.length > recordSize) throw failure(400, 'malformed aes128gcm header');
  const shared = device.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), device.ecdh.getPublicKey(), serverPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, device.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  const end = padded.lastIndexOf(2);
  if (end < 0 || padded.subarray(end + 1).some((b) => b !== 0)) throw failure(400, 'bad record padding');
  return padded.subarray(0, end);
}
