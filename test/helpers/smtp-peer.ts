import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server (the `smtp-server` package, nodemailer's own) on
 * loopback with a certificate made for the test: it offers STARTTLS, refuses
 * AUTH before it (as the package does unless told otherwise), checks the
 * credentials (535 otherwise) and keeps each accepted message with what the
 * session looked like: upgraded to TLS or not, and who logged in.
 */

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The session had upgraded to TLS (STARTTLS) before the message. */
  secure: boolean;
  user: string | undefined;
  headers: Record<string, string>;
  text: string;
}

export interface TestCertificate {
  key: string;
  cert: string;
}

/** A self-signed certificate for 127.0.0.1, made by openssl (installed by .ci/run when missing). */
export function selfSignedCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export class SmtpPeer {
  readonly mails: ReceivedMail[] = [];
  readonly authAttempts: { user: string; secure: boolean; ok: boolean }[] = [];
  /** SMTP reply code to refuse the next messages with (a 4xx is temporary). */
  failWith: number[] = [];
  port = 0;
  private server: SMTPServer;

  constructor(
    readonly certificate: TestCertificate,
    private readonly account: { user: string; pass: string },
  ) {
    this.server = new SMTPServer({
      key: certificate.key,
      cert: certificate.cert,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth: (auth, session, callback) => this.auth(auth, session, callback),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const code = this.failWith.shift();
          if (code) return callback(Object.assign(new Error('try again later'), { responseCode: code }));
          this.mails.push(parse(Buffer.concat(chunks).toString('utf8'), session));
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private auth(
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
    callback: (err: Error | null | undefined, response?: { user: string }) => void,
  ): void {
    const ok = auth.username === this.account.user && auth.password === this.account.pass;
    this.authAttempts.push({ user: auth.username ?? '', secure: session.secure, ok });
    if (!ok) return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    callback(null, { user: auth.username ?? '' });
  }
}

function parse(raw: string, session: SMTPServerSession): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  let text = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    text = Buffer.from(
      text
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return {
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    secure: session.secure,
    user: session.user as string | undefined,
    headers,
    text: text.replace(/\r\n/g, '\n').trim(),
  };
}
