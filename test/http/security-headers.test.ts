import Fastify from 'fastify';
import request from 'supertest';
import { applyHtmlSecurityHeaders, CONTENT_SECURITY_POLICY } from '../../server/src/http/security-headers';

/** The HTML security headers: strict CSP, same-origin framing only (HA ingress is same-origin). */
describe('HTML security headers', () => {
  it('sets a strict policy without inline script or foreign framing', async () => {
    const app = Fastify();
    app.get('/page', async (_request, reply) =>
      applyHtmlSecurityHeaders(reply).type('text/html').send('<p>x</p>'),
    );
    await app.ready();
    const res = await request(app.server).get('/page').expect(200);
    await app.close();
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("object-src 'none'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
