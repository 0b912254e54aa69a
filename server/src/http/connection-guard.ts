import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from './limits';

/**
 * Caps open sockets, in total (node refuses a connection past
 * `maxConnections` before it costs more than the accept) and per peer
 * address: one client cannot take the descriptors every other client and
 * /health need. A peer that is a trusted proxy (HA ingress, a reverse proxy)
 * carries many users and is not counted. A socket over the cap is closed
 * at once, before a byte of its request is read.
 */
export function guardConnections(
  server: Server,
  limits: Pick<HttpLimits, 'maxConnections' | 'maxConnectionsPerClient'>,
  isTrustedProxy: (peer: string) => boolean,
): void {
  server.maxConnections = limits.maxConnections;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? '';
    if (isTrustedProxy(peer)) return;
    const count = (open.get(peer) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    open.set(peer, count);
    socket.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left > 0) open.set(peer, left);
      else open.delete(peer);
    });
  });
}
