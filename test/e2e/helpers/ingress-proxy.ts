import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Home Assistant's ingress proxy: serves the app under
 * `/api/hassio_ingress/<token>/`, strips that prefix before forwarding, and
 * tells the app its prefix in `X-Ingress-Path`, as HA's Supervisor does.
 * Streams bodies both ways, so SSE passes through.
 */

export interface IngressProxy {
  /** The app's URL through the proxy, ending in '/'. */
  url: string;
  prefix: string;
  /** Simulates an outage: open connections are cut and new requests answer 502 until it is back up. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export async function startIngressProxy(
  targetPort: number,
  token = 'e2e-ingress-token',
): Promise<IngressProxy> {
  const prefix = `/api/hassio_ingress/${token}`;
  let down = false;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (down) {
      res.writeHead(502).end('upstream down');
      return;
    }
    if (!url.startsWith(`${prefix}/`) && url !== prefix) {
      res.writeHead(404).end('not under the ingress prefix');
      return;
    }
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: targetPort,
        method: req.method,
        path: url.slice(prefix.length) || '/',
        headers: { ...req.headers, 'x-ingress-path': prefix },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}/`,
    prefix,
    setDown(value) {
      down = value;
      if (value) server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
