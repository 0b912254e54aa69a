import type { Logger } from '../core/logger';

/**
 * The add-on tells Home Assistant it is here (config.yaml `discovery:
 * [raincheck]`): after listening, it posts `{service: 'raincheck', config:
 * {host, port, uuid}}` to the Supervisor's discovery API, and HA starts the
 * companion integration's `hassio` flow ("Raincheck discovered"). The shapes
 * are the Supervisor's (supervisor/api/discovery.py): every answer is
 * `{result: 'ok', data}` or `{result: 'error', message}`; the post answers
 * `data.uuid`, the message id, which `stop()` deletes (DELETE
 * /discovery/<id>). `host` is the add-on's hostname on the Supervisor's
 * network (`GET /addons/self/info` `data.hostname`), where HA reaches it.
 * A Supervisor that does not answer costs one warning, never the start.
 */

export const DISCOVERY_SERVICE = 'raincheck';
const SUPERVISOR_DEFAULT_URL = 'http://supervisor';
const TIMEOUT_MS = 10_000;

export interface SupervisorDiscoveryDeps {
  logger: Logger;
  fetch: typeof fetch;
  /** SUPERVISOR_API (http://supervisor by default). */
  supervisorUrl: string;
  token: string;
  /** The install id (/info uuid); null leaves nothing to announce. */
  installId: string | null;
}

interface SupervisorAnswer {
  result?: string;
  message?: string;
  data?: Record<string, unknown>;
}

/** Built only in the add-on (SUPERVISOR_TOKEN set). */
export function supervisorDiscoveryFrom(
  vars: Readonly<Record<string, string | undefined>>,
  deps: Omit<SupervisorDiscoveryDeps, 'supervisorUrl' | 'token'>,
): SupervisorDiscovery | null {
  const token = vars.SUPERVISOR_TOKEN?.trim();
  if (!token) return null;
  const supervisorUrl = (vars.SUPERVISOR_API?.trim() || SUPERVISOR_DEFAULT_URL).replace(/\/+$/, '');
  return new SupervisorDiscovery({ ...deps, supervisorUrl, token });
}

export class SupervisorDiscovery {
  private messageId: string | null = null;

  constructor(private readonly deps: SupervisorDiscoveryDeps) {}

  /** Posts the discovery message; resolves with its id, or null when it was not sent. */
  async announce(port: number): Promise<string | null> {
    const log = this.deps.logger.child({ module: 'supervisor-discovery' });
    if (!this.deps.installId) {
      log.warn('no install id (data folder not writable): Home Assistant is not told about the add-on');
      return null;
    }
    try {
      const self = await this.call('GET', '/addons/self/info');
      const host = hostOf(self.data);
      if (!host) throw new Error('/addons/self/info named no hostname');
      const posted = await this.call('POST', '/discovery', {
        service: DISCOVERY_SERVICE,
        config: { host, port, uuid: this.deps.installId },
      });
      this.messageId = typeof posted.data?.uuid === 'string' ? posted.data.uuid : null;
      log.info({ host, port, message: this.messageId }, 'announced to Home Assistant through the Supervisor');
      return this.messageId;
    } catch (err) {
      log.warn(
        { reason: (err as Error).message },
        'Supervisor discovery failed: set Raincheck up in HA by hand',
      );
      return null;
    }
  }

  /** Withdraws the message (the Supervisor also drops it when the add-on stops). */
  async stop(): Promise<void> {
    const id = this.messageId;
    this.messageId = null;
    if (!id) return;
    await this.call('DELETE', `/discovery/${encodeURIComponent(id)}`).catch(() => undefined);
  }

  private async call(method: string, path: string, body?: unknown): Promise<SupervisorAnswer> {
    const response = await this.deps.fetch(`${this.deps.supervisorUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.deps.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => ({}))) as SupervisorAnswer;
    if (!response.ok || answer.result !== 'ok') {
      throw new Error(`${method} ${path}: ${response.status} ${answer.message ?? ''}`.trim());
    }
    return answer;
  }
}

function hostOf(data: Record<string, unknown> | undefined): string | null {
  const hostname = data?.hostname;
  return typeof hostname === 'string' && hostname.trim() ? hostname.trim() : null;
}
