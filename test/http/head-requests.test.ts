import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { serviceTracker } from '../helpers/service';

/**
 * HEAD is answered by the GET route of the same path (http/head-as-get.ts,
 * in place of fastify's second route per GET): the GET answer's status and
 * headers without its body; an SSE stream ends after its headers; metrics
 * and request logs keep the method the client sent.
 */

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request over node:http, resolved when the server ends the response. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const { boot } = serviceTracker();

describe('HEAD requests', () => {
  it('answer with the GET answer’s status and headers and no body', async () => {
    const { port } = await boot({ env: { DEMO: '1' } });
    for (const path of ['/api/v1/info', '/api/info', '/api/v1/health']) {
      const get = await send(port, 'GET', path);
      const head = await send(port, 'HEAD', path);
      expect([path, head.status]).toEqual([path, get.status]);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      expect(head.body).toBe('');
    }
  });

  it('send the uncompressed length when the client accepts gzip, and 404 where no GET route is', async () => {
    const { port } = await boot({ env: { DEMO: '1' } });
    const head = await send(port, 'HEAD', '/api/v1/config', { 'accept-encoding': 'gzip' });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.body).toBe('');
    expect((await send(port, 'HEAD', '/api/v1/no-such-resource')).status).toBe(404);
  });

  it('end an event stream after its headers', async () => {
    const { port } = await boot({ env: { DEMO: '1' } });
    const head = await send(port, 'HEAD', '/api/v1/irrigation/stream');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(head.body).toBe('');
  });

  it('count as HEAD in the request metrics', async () => {
    const { port } = await boot({ env: { DEMO: '1' } });
    await send(port, 'HEAD', '/api/v1/info');
    await send(port, 'HEAD', '/api/v1/info');
    const metrics = await send(port, 'GET', '/metrics');
    expect(metrics.body).toMatch(/raincheck_http_requests_total\{method="HEAD",status_class="2xx"\} 2\b/);
  });
});
