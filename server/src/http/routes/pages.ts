import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_PAGES, assetType, shellFor, webBuildDir } from '../../web/app-shell';
import { acceptsGzip } from '../accept-encoding';
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
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function pageRoutes(): DomainRoutes {
  const template = shellTemplate();
  const shell = async (request: FastifyRequest, reply: FastifyReply) => {
    const html = await template();
    if (html === null) throw new ApiError(503, 'web_app_not_built', NOT_BUILT);
    return applyHtmlSecurityHeaders(reply)
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(shellFor(html, request.url));
  };

  const asset = async (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
    const name = request.params.file;
    const type = assetType(name);
    const dir = webBuildDir();
    if (!type || !dir) throw missingAsset(name);
    const file = join(dir, 'pkg', name);
    const packed = acceptsGzip(request.headers['accept-encoding']) ? await readOrNull(`${file}.gz`) : null;
    const body = packed ?? (await readOrNull(file));
    if (!body) throw missingAsset(name);
    // Set only once the file is there: a 404 must not be cached for a year.
    reply
      .type(type)
      .header('Cache-Control', IMMUTABLE)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Vary', 'Accept-Encoding');
    if (packed) reply.header('Content-Encoding', 'gzip');
    return reply.send(body);
  };

  return {
    root: (scope) => {
      for (const path of APP_PAGES) scope.get(path, shell);
      scope.get('/pkg/:file', asset);
    },
  };
}

/**
 * index.html of the current build, null when there is none. Read again only
 * when the file changes (a front-end rebuild into RAINCHECK_WEB_DIR), so a
 * page request costs one stat.
 */
function shellTemplate(): () => Promise<string | null> {
  let cached: { file: string; mtimeMs: number; html: string } | null = null;
  return async () => {
    const dir = webBuildDir();
    if (!dir) return null;
    const file = join(dir, 'index.html');
    const info = await stat(file).catch(() => null);
    if (!info) return null;
    if (cached?.file === file && cached.mtimeMs === info.mtimeMs) return cached.html;
    const html = await readFile(file, 'utf8').catch(() => null);
    cached = html === null ? null : { file, mtimeMs: info.mtimeMs, html };
    return html;
  };
}

function missingAsset(name: string): ApiError {
  return new ApiError(404, 'not_found', `no asset ${name}`);
}

function readOrNull(file: string): Promise<Buffer | null> {
  return readFile(file).catch(() => null);
}
