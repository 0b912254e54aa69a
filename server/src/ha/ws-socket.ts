import { ERR_CANNOT_CONNECT, ERR_INVALID_AUTH, type HaWebSocket } from 'home-assistant-js-websocket';
import WebSocket from 'ws';

/**
 * The `createSocket` that home-assistant-js-websocket calls for the first
 * connection and for every reconnect, built on `ws` because Node 20 has no
 * global WebSocket (the library's own createSocket does `new WebSocket(url)`
 * on the global and derives the URL from an http(s) base, which cannot
 * express the add-on URL `ws://supervisor/core/websocket`).
 *
 * It runs the auth phase of the protocol (auth_required -> auth -> auth_ok or
 * auth_invalid) and resolves with an authenticated socket, exactly as the
 * library's createSocket does: rejecting with the library's ERR_INVALID_AUTH
 * (no retry) or ERR_CANNOT_CONNECT (retry), since the library compares those
 * numbers. The human reason of the last failure is kept in `lastFailure`.
 * The token is only ever written to the socket.
 */

export type HaConnectFailure =
  | { kind: 'auth_invalid'; message: string }
  | { kind: 'unreachable'; message: string }
  | { kind: 'aborted'; message: string };

export interface HaSocketFactoryOptions {
  url: string;
  token: string;
  /** Bounds the whole open + auth phase; a stalled peer emits neither open nor close. */
  connectTimeoutMs: number;
  /** Socket-level errors after auth (the library attaches no error listener). */
  onSocketError?: (err: Error) => void;
  /** Every failed attempt, including the library's reconnect attempts. */
  onFailure?: (failure: HaConnectFailure) => void;
}

export class HaSocketFactory {
  lastFailure: HaConnectFailure | null = null;
  private aborted = false;
  private readonly pending = new Set<WebSocket>();

  constructor(private readonly options: HaSocketFactoryOptions) {}

  /** Passed to the library as ConnectionOptions.createSocket. */
  readonly create = (): Promise<HaWebSocket> => this.connect();

  /** Allows connecting again after abortAll(). */
  reset(): void {
    this.aborted = false;
    this.lastFailure = null;
  }

  /**
   * Stops every socket still connecting and refuses new ones. Rejects with
   * ERR_INVALID_AUTH on purpose: it is the one error on which the library's
   * reconnect loop ends instead of arming another timer.
   */
  abortAll(): void {
    this.aborted = true;
    for (const socket of this.pending) socket.terminate();
    this.pending.clear();
  }

  private connect(): Promise<HaWebSocket> {
    if (this.aborted) {
      this.lastFailure = { kind: 'aborted', message: 'link stopped' };
      return Promise.reject(ERR_INVALID_AUTH);
    }
    this.lastFailure = null;
    const { url, token, connectTimeoutMs } = this.options;
    return new Promise<HaWebSocket>((resolve, reject) => {
      const socket = new WebSocket(url, { handshakeTimeout: connectTimeoutMs });
      this.pending.add(socket);
      let settled = false;
      let handedOut = false;
      let socketError: string | null = null;

      const finish = (failure: HaConnectFailure | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(socket);
        socket.off('message', onMessage);
        socket.off('close', onClose);
        if (failure === null) return;
        this.lastFailure = this.aborted ? { kind: 'aborted', message: 'link stopped' } : failure;
        if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
        this.options.onFailure?.(this.lastFailure);
        reject(this.lastFailure.kind === 'unreachable' ? ERR_CANNOT_CONNECT : ERR_INVALID_AUTH);
      };

      const timer = setTimeout(
        () => finish({ kind: 'unreachable', message: `no answer within ${connectTimeoutMs} ms` }),
        connectTimeoutMs,
      );

      const onMessage = (data: WebSocket.RawData): void => {
        let message: { type?: unknown; ha_version?: unknown; message?: unknown };
        try {
          message = JSON.parse(data.toString()) as typeof message;
        } catch {
          finish({ kind: 'unreachable', message: 'the server did not speak the Home Assistant protocol' });
          return;
        }
        switch (message.type) {
          case 'auth_required':
            socket.send(JSON.stringify({ type: 'auth', access_token: token }));
            break;
          case 'auth_ok': {
            const haVersion = typeof message.ha_version === 'string' ? message.ha_version : '';
            finish(null);
            const haSocket = socket as unknown as HaWebSocket;
            haSocket.haVersion = haVersion;
            // Same as the library: ask for coalesced messages (id 1; the Connection starts at 2).
            if (atLeastHaVersion(haVersion, 2022, 9)) {
              socket.send(
                JSON.stringify({ type: 'supported_features', id: 1, features: { coalesce_messages: 1 } }),
              );
            }
            handedOut = true;
            resolve(haSocket);
            break;
          }
          case 'auth_invalid':
            finish({
              kind: 'auth_invalid',
              message: typeof message.message === 'string' ? message.message : 'auth_invalid',
            });
            break;
          default:
            break;
        }
      };

      const onClose = (code: number): void => {
        finish({
          kind: 'unreachable',
          message: socketError ?? `connection closed before authentication (code ${code})`,
        });
      };

      // Permanent: a `ws` socket with no error listener throws on a protocol error and takes the process down.
      socket.on('error', (err: Error) => {
        if (!settled) socketError = err.message;
        else if (handedOut) this.options.onSocketError?.(err);
      });
      socket.on('message', onMessage);
      socket.on('close', onClose);
    });
  }
}

/** `2024.1.0`, `2022.9.0b3`, `2023.12.0.dev0`: year and month compared numerically. */
export function atLeastHaVersion(version: string, year: number, month: number): boolean {
  const [y, m] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (y === undefined || m === undefined || Number.isNaN(y) || Number.isNaN(m)) return false;
  return y > year || (y === year && m >= month);
}
