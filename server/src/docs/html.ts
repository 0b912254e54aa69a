import type { OpenApiDocument } from './openapi';

/**
 * GET /docs/: the OpenAPI document as a plain HTML page, rendered here (no
 * CDN, no script, no inline style: the HTML security headers' CSP allows
 * none). Routes are grouped by tag; each shows its security, parameters and
 * request body schema as preformatted JSON. `specHref` is the relative link
 * to the JSON document from the page's own URL.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function pre(value: unknown): string {
  return `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;
}

type Operation = Record<string, unknown>;

function securityText(operation: Operation): string {
  const security = operation.security as Record<string, unknown>[] | undefined;
  if (!security || security.length === 0) return 'public';
  const schemes = security.flatMap((s) => Object.keys(s)).join(' or ');
  const notes = [
    operation['x-privileged'] ? 'privileged' : null,
    operation['x-public-until-setup'] ? 'public until the first account exists' : null,
  ].filter(Boolean);
  return `credentials: ${schemes}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** Resolves a local `$ref` into the components for display (one level, the body's own schema). */
function resolve(document: OpenApiDocument, value: unknown): unknown {
  const ref = (value as { $ref?: unknown } | null)?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) return value;
  return document.components.schemas[ref.slice('#/components/schemas/'.length)] ?? value;
}

function renderOperation(
  document: OpenApiDocument,
  path: string,
  method: string,
  operation: Operation,
): string {
  const parts = [
    `<h3 id="${escapeHtml(String(operation.operationId))}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3>`,
    `<p>${escapeHtml(securityText(operation))}${operation['x-legacy-alias'] ? `; also at <code>${escapeHtml(String(operation['x-legacy-alias']))}</code>` : ''}</p>`,
  ];
  const parameters = operation.parameters as unknown[] | undefined;
  if (parameters && parameters.length > 0) parts.push('<h4>Parameters</h4>', pre(parameters));
  const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  for (const [type, media] of Object.entries(body?.content ?? {})) {
    parts.push(
      `<h4>Request body (<code>${escapeHtml(type)}</code>)</h4>`,
      pre(resolve(document, media.schema)),
    );
  }
  return `<section>${parts.join('\n')}</section>`;
}

export function renderDocsHtml(document: OpenApiDocument, specHref: string): string {
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = ((operation.tags as string[] | undefined) ?? ['other'])[0] ?? 'other';
      const list = byTag.get(tag) ?? [];
      list.push(renderOperation(document, path, method, operation));
      byTag.set(tag, list);
    }
  }
  const tags = [...byTag.keys()].sort();
  const info = document.info as { title: string; version: string; description?: string };
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(info.title)} API ${escapeHtml(info.version)}</title></head><body>`,
    `<h1>${escapeHtml(info.title)} API ${escapeHtml(info.version)}</h1>`,
    `<p>${escapeHtml(info.description ?? '')}</p>`,
    `<p>The machine-readable document: <a href="${escapeHtml(specHref)}">openapi.json</a> (OpenAPI ${escapeHtml(document.openapi)}).</p>`,
    `<nav><ul>${tags.map((tag) => `<li><a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a></li>`).join('')}</ul></nav>`,
    ...tags.map(
      (tag) =>
        `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>\n${(byTag.get(tag) ?? []).join('\n')}`,
    ),
    '</body></html>',
  ].join('\n');
}
