import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_PAGES, assetType, shellFor, webBuildDir } from '../../web/app-shell';
import type { DomainRoutes } from '../deps';
import { ApiError } from '../errors';
import { applyHtmlSecurityHeaders } from '../security-headers';

/**
 * The web app's pages (/, /login, /setup, /zones/<slug>, /history,
 * /settings, ...) and its bundle under /pkg/ (spec 5.5: public). Each page is
 * the same built shell with a `<base href>` pointing at the app root; the
 * auth gate has already redirected an unauthenticated page request to /login.
 * Hashed assets are immutable; a precompressed `.gz` beside each is sent to
 * clients that accept gzip.
 */

const NOT_BUILT = 'the web app is not built in this install: run `npm run build`';

export function pageRoutes(): DomainRoutes {
  let template: string | null = null;
  const shell = async (request: FastifyRequest, reply: FastifyReply) => {
    const dir = webBuildDir();
    if (!dir) throw new ApiError(503, 'web_app_not_built', NOT_BUILT);
    template ??= await readFile(join(dir, 'index.html'), 'utf8');
    return applyHtmlSecurityHeaders(reply)
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(shellFor(template, request.url));
  };

  const asset = async (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
    const name = request.params.file;
    const type = assetType(name);
    const dir = webBuildDir();
    if (!type || !dir) throw new ApiError(404, 'not_found', `no asset ${name}`);
    const file = join(dir, 'pkg', name);
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    reply
      .type(type)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Vary', 'Accept-Encoding');
    if (gzip) {
      const packed = await readFile(`${file}.gz`).catch(() => null);
      if (packed) return reply.header('Content-Encoding', 'gzip').send(packed);
    }
    const plain = await readFile(file).catch(() => null);
    if (!plain) throw new ApiError(404, 'not_found', `no asset ${name}`);
    return reply.send(plain);
  };

  return {
    root: (scope) => {
      for (const path of APP_PAGES) scope.get(path, shell);
      scope.get('/pkg/:file', asset);
    },
  };
}
