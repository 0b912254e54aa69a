import type { Socket } from 'node:net';

/**
 * A refused request whose body is still arriving is answered with
 * `Connection: close` (errors.ts), and node then destroys the socket as soon
 * as the answer is written. Bytes the client sent meanwhile are still unread
 * on our side, and closing a socket with unread bytes sends a reset, which
 * can reach the client before it has read the answer: it sees a broken
 * connection instead of the 413. So, like a web server's lingering close,
 * the socket is half-closed after the answer and what still arrives is
 * discarded, for a short while and a bounded number of bytes; then it is
 * destroyed. A client stops sending when it reads the answer or the FIN.
 */

const LINGER_MS = 1_000;
const LINGER_MAX_BYTES = 1024 * 1024;

const lingering = new WeakSet<Socket>();

export function lingerOnClose(socket: Socket | null | undefined): void {
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = function destroySoon(this: Socket) {
    if (this.writable) this.end();
    let discarded = 0;
    const stop = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_MAX_BYTES) stop();
    });
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}
