import type { ConnectionOptions } from 'node:tls';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { Channel, Notice, SendResult } from '../types';
import { scrub } from './http-outcome';
import { absoluteLink } from './links';

/**
 * E-mail over SMTP through nodemailer (loaded on the first send, never at
 * boot). `starttls` true (the default) requires the STARTTLS upgrade before
 * AUTH and refuses a server that does not offer it; false talks plain SMTP
 * (a relay on the LAN). Port 465 is TLS from the first byte. The certificate
 * is always verified. SMTP 4xx replies and lost connections are retried;
 * 5xx replies (a refused login, an unknown recipient) are not.
 */

export interface EmailSettings {
  smtp_host: string;
  smtp_port: number;
  username?: string | null;
  password?: string | null;
  from_address: string;
  to_address: string;
  starttls: boolean;
}

export interface EmailDeps {
  publicUrl: string | null;
  /** Extra TLS options (tests trust their own certificate authority here). */
  tls?: ConnectionOptions;
  timeoutMs?: number;
}

const IMPLICIT_TLS_PORT = 465;
/** Failures a later attempt can cure: connection, greeting, socket, DNS. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EPROTOCOL']);

export class EmailChannel implements Channel {
  readonly id = 'email' as const;
  private transport: Transporter<SMTPTransport.SentMessageInfo> | null = null;

  constructor(
    private readonly settings: EmailSettings,
    private readonly deps: EmailDeps,
  ) {}

  async send(notice: Notice): Promise<SendResult> {
    const secrets = this.settings.password ? [this.settings.password] : [];
    try {
      const info = await this.mailer().sendMail(this.message(notice));
      return { status: 'sent', detail: `accepted by ${this.settings.smtp_host}: ${info.response}` };
    } catch (err) {
      return smtpFailure(err, secrets);
    }
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }

  private mailer(): Transporter<SMTPTransport.SentMessageInfo> {
    if (this.transport) return this.transport;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodemailer = require('nodemailer') as typeof import('nodemailer');
    const secure = this.settings.smtp_port === IMPLICIT_TLS_PORT;
    const timeout = this.deps.timeoutMs ?? 20_000;
    const options: SMTPTransport.Options = {
      host: this.settings.smtp_host,
      port: this.settings.smtp_port,
      secure,
      requireTLS: !secure && this.settings.starttls,
      ignoreTLS: !secure && !this.settings.starttls,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      ...(this.deps.tls ? { tls: this.deps.tls } : {}),
      ...(this.settings.username
        ? { auth: { user: this.settings.username, pass: this.settings.password ?? '' } }
        : {}),
    };
    this.transport = nodemailer.createTransport(options);
    return this.transport;
  }

  private message(notice: Notice) {
    const link = absoluteLink(this.deps.publicUrl, notice.link);
    return {
      from: this.settings.from_address,
      to: this.settings.to_address,
      subject: `[Raincheck] ${notice.title}`,
      text: [notice.body, ...(link ? ['', `Open in Raincheck: ${link}`] : [])].join('\n'),
      headers: { 'X-Raincheck-Event': notice.event },
    };
  }
}

function smtpFailure(err: unknown, secrets: readonly string[]): SendResult {
  const error = err as { code?: string; responseCode?: number; message?: string };
  const detail = scrub(`${error.code ?? 'SMTP'}: ${error.message ?? String(err)}`, secrets);
  const code = error.responseCode;
  if (typeof code === 'number')
    return code >= 400 && code < 500 ? { status: 'retry', detail } : { status: 'failed', detail };
  return TRANSIENT_CODES.has(error.code ?? '') ? { status: 'retry', detail } : { status: 'failed', detail };
}
