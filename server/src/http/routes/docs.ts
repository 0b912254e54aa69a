import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from '../../docs/openapi';
import { registeredRoutes } from '../app';
import type { DomainRoutes, HttpDeps } from '../deps';
import { applyHtmlSecurityHeaders } from '../security-headers';

/**
 * /docs (public, spec 5.5): GET /docs/openapi.json, the OpenAPI 3.1 document
 * of every registered route, and GET /docs/ (and /docs), an HTML rendering of
 * it. The document is built on the first request (the route list is final
 * once the app is ready) and kept; the builder loads only then.
 */

function loadDocs(): typeof import('../../docs/openapi') & typeof import('../../docs/html') {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('../../docs/openapi') as typeof import('../../docs/openapi')),
    ...(require('../../docs/html') as typeof import('../../docs/html')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

export function docsRoutes(deps: HttpDeps): DomainRoutes {
  let document: OpenApiDocument | null = null;
  const build = (app: FastifyInstance): OpenApiDocument =>
    (document ??= loadDocs().buildOpenApi({ routes: registeredRoutes(app), privileged: deps.privileged }));
  return {
    root: (scope) => {
      scope.get('/docs/openapi.json', async (_request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(build(scope))),
      );
      // Links are relative: from /docs the document is docs/openapi.json, from /docs/ it is openapi.json.
      for (const [url, specHref] of [
        ['/docs/', 'openapi.json'],
        ['/docs', 'docs/openapi.json'],
      ] as const) {
        scope.get(url, async (_request, reply) =>
          applyHtmlSecurityHeaders(reply)
            .type('text/html; charset=utf-8')
            .send(loadDocs().renderDocsHtml(build(scope), specHref)),
        );
      }
    },
  };
}
