import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { CONTENT_SECURITY_POLICY } from '../../server/src/http/security-headers';
import { configToml, seedOwner } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/** GET /docs/openapi.json and its HTML rendering (public per spec 5.5). */

// The app createApp built, so the test can ask fastify itself which routes exist.
const mockApps: FastifyInstance[] = [];
jest.mock('../../server/src/http/app', () => {
  const actual = jest.requireActual<typeof import('../../server/src/http/app')>('../../server/src/http/app');
  return {
    ...actual,
    createApp: (...args: Parameters<typeof actual.createApp>) => {
      const app = actual.createApp(...args);
      mockApps.push(app);
      return app;
    },
  };
});

const { boot } = serviceTracker();

type Operation = Record<string, unknown> & {
  security: Record<string, unknown>[];
  tags: string[];
  parameters: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
};
interface Doc {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    securitySchemes: Record<string, unknown>;
    responses: Record<string, unknown>;
  };
}

/** `METHOD /path` for every route in fastify's own route tree (printRoutes), HEAD left out. */
function routesOf(app: FastifyInstance): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ')) if (method !== 'HEAD') routes.add(`${method} ${path}`);
  }
  return routes;
}

/** Every operation, by `METHOD /path` in fastify syntax, its legacy alias included. */
function operationsOf(doc: Doc): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      operations.set(`${method.toUpperCase()} ${fastifyPath(path)}`, op);
      const alias = op['x-legacy-alias'];
      if (typeof alias === 'string') operations.set(`${method.toUpperCase()} ${fastifyPath(alias)}`, op);
    }
  }
  return operations;
}

async function fetchDoc() {
  const booted = await boot({ configToml: configToml({ mode: 'required' }) });
  await seedOwner(booted.service);
  const app = mockApps[mockApps.length - 1] as FastifyInstance;
  const base = `http://127.0.0.1:${booted.port}`;
  const res = await request(base).get('/docs/openapi.json');
  return { ...booted, app, base, res, doc: res.body as Doc };
}

describe('GET /docs/openapi.json', () => {
  it('is public and has the shape of an OpenAPI 3.1 document', async () => {
    const { res, doc } = await fetchDoc();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Raincheck');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '..' })]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'accessToken',
      'bearerAuth',
      'cookieAuth',
    ]);
    expect(doc.components.responses.Error).toBeDefined();
    const tagNames = doc.tags.map((t) => t.name);
    for (const [path, operations] of Object.entries(doc.paths)) {
      expect(path).toMatch(/^\//);
      expect(path).not.toContain(':');
      expect(Object.keys(operations).length).toBeGreaterThan(0);
      for (const [method, op] of Object.entries(operations)) {
        expect(['get', 'put', 'post', 'delete', 'patch']).toContain(method);
        expect(op.responses).toHaveProperty('default');
        expect(tagNames).toContain(op.tags[0]);
        for (const name of path.match(/\{([^}]+)\}/g) ?? []) {
          expect(op.parameters).toContainEqual(
            expect.objectContaining({ name: name.slice(1, -1), in: 'path', required: true }),
          );
        }
        // Every $ref points at a component that exists.
        for (const ref of JSON.stringify(op).match(/#\/components\/[a-zA-Z]+\/[A-Za-z]+/g) ?? []) {
          const [, , kind, name] = ref.split('/');
          expect((doc.components as Record<string, Record<string, unknown>>)[kind as string]).toHaveProperty(
            name as string,
          );
        }
      }
    }
  });

  it('lists every route the app registered, and nothing else', async () => {
    const { app, doc } = await fetchDoc();
    const registered = routesOf(app);
    const documented = operationsOf(doc);
    expect(registered.size).toBeGreaterThan(80);
    expect([...documented.keys()].sort()).toEqual([...registered].sort());
    // Spot checks across the mounts: root, shared (with its legacy alias), v1-only, and this routes.
    expect(doc.paths['/metrics']?.get).toBeDefined();
    expect(doc.paths['/api/v1/info']?.get?.['x-legacy-alias']).toBe('/api/info');
    expect(doc.paths['/api/v1/radar/tropical']?.get?.['x-legacy-alias']).toBeUndefined();
    expect(doc.paths['/api/v1/auth/tokens/{id}']?.delete).toBeDefined();
    expect(doc.paths['/site/photos/{name}']?.get?.tags).toEqual(['site']);
    expect(doc.paths['/api/v1/irrigation/snapshot']?.get?.tags).toEqual(['irrigation']);
  });

  it('declares security from the public-path rules and marks privileged routes', async () => {
    const { doc } = await fetchDoc();
    const credentials = [{ bearerAuth: [] }, { cookieAuth: [] }];
    for (const path of ['/api/v1/info', '/api/v1/health', '/sw.js', '/manifest.webmanifest', '/metrics']) {
      expect([path, doc.paths[path]?.get?.security]).toEqual([path, []]);
    }
    expect(doc.paths['/docs/openapi.json']?.get?.security).toEqual([]);
    expect(doc.paths['/api/v1/auth/login']?.post?.security).toEqual([]);
    expect(doc.paths['/api/v1/config']?.get?.security).toEqual(credentials);
    expect(doc.paths['/site/photos/{name}']?.get?.security).toEqual(credentials);
    expect(doc.paths['/api/v1/irrigation/stream']?.get?.security).toEqual([
      ...credentials,
      { accessToken: [] },
    ]);
    expect(doc.paths['/api/v1/config']?.put?.['x-privileged']).toBe(true);
    expect(doc.paths['/api/v1/zones/photo']?.post?.['x-privileged']).toBe(true);
    expect(doc.paths['/api/v1/config']?.get?.['x-privileged']).toBeUndefined();
  });

  it('carries the JSON Schema of the simulate, action, config and auth bodies', async () => {
    const { doc } = await fetchDoc();
    const bodySchema = (path: string, method: string, type = 'application/json') => {
      const ref = doc.paths[path]?.[method]?.requestBody?.content[type]?.schema.$ref ?? '';
      return doc.components.schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown>;
    };
    const simulate = bodySchema('/api/v1/irrigation/simulate', 'post');
    expect(simulate.type).toBe('object');
    expect(Object.keys(simulate.properties as object).sort()).toEqual(['forecast', 'now_epoch', 'weather']);
    expect(simulate.additionalProperties).toBe(false);

    const action = bodySchema('/api/v1/irrigation/action', 'post');
    const variants = action.oneOf as { properties: Record<string, { const?: string; minimum?: number }> }[];
    const kinds = variants.map((v) => v.properties.kind?.const).sort();
    expect(kinds).toEqual([
      'clear_pause_until',
      'declare_soil_state',
      'run',
      'set_global_override',
      'set_override_tomorrow',
      'set_pause_until',
      'set_schedule_enabled',
      'set_threshold',
      'set_zone_override',
      'stop',
      'stop_all',
      'toggle',
    ]);
    const run = variants.find((v) => v.properties.kind?.const === 'run');
    expect(run?.properties.seconds?.minimum).toBe(1);
    expect(action.discriminator).toEqual({ propertyName: 'kind' });

    const config = bodySchema('/api/v1/config', 'put');
    expect(Object.keys(config.properties as object)).toEqual(
      expect.arrayContaining(['schema_version', 'deployment', 'zones', 'restrictions', 'schedules', 'auth']),
    );
    expect(JSON.stringify(config)).toContain('photo_url');
    // A zone's own run window has the deployment's keys.
    const zoneProps = ((
      config.properties as Record<string, { additionalProperties?: { properties?: Record<string, unknown> } }>
    ).zones?.additionalProperties?.properties ?? {}) as Record<string, { properties?: object }>;
    const deploymentProps = (config.properties as Record<string, { properties?: Record<string, unknown> }>)
      .deployment?.properties as Record<string, unknown>;
    expect(zoneProps.run_window).toEqual(deploymentProps.run_window);
    expect(JSON.stringify(zoneProps.run_window)).toContain('start_at');

    expect(bodySchema('/api/v1/auth/login', 'post').required).toEqual(['username', 'password']);
    expect(bodySchema('/api/v1/push/subscribe', 'post').required).toEqual(['endpoint', 'keys']);
    expect(bodySchema('/api/v1/push/unsubscribe', 'post').required).toEqual(['endpoint']);
    expect(bodySchema('/api/v1/notifications/routes', 'put').required).toEqual(['routes']);
    expect(bodySchema('/api/v1/zones/photo', 'post', 'multipart/form-data').required).toEqual(['file']);
    const archive = doc.paths['/api/v1/forecast/archive']?.get?.parameters.map((p) => p.name);
    expect(archive).toEqual(expect.arrayContaining(['from', 'to', 'lead_h', 'limit', 'cursor', 'track']));
  });
});

describe('GET /docs/', () => {
  it('renders the document as HTML with the security headers, at /docs/ and /docs', async () => {
    const { base, doc } = await fetchDoc();
    for (const [url, link] of [
      ['/docs/', 'href="openapi.json"'],
      ['/docs', 'href="docs/openapi.json"'],
    ] as const) {
      const res = await request(base).get(url).set('Accept', 'text/html');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text).toContain(link);
      // No script, no external resource, no inline style (the CSP would block them).
      expect(res.text).not.toMatch(/<script|<link|style=|<style|https?:\/\//i);
      for (const path of Object.keys(doc.paths)) expect(res.text).toContain(`${path}</code>`);
      expect(res.text).toContain('<code>POST /api/v1/irrigation/simulate</code>');
      expect(res.text).toContain('&#34;now_epoch&#34;');
    }
  });
});
