import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { PHOTO_MAX_BYTES } from '../../server/src/photos/upload';
import { configToml, seedOwner } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';
import { GIF_1X1, HTML, JPEG_MINIMAL, PNG_1X1, SVG, WEBP_1X1 } from './images';

/** POST /zones/photo and GET /site/photos/{name} (spec 4.8, 5.5, 8). */

const { boot } = serviceTracker();
const UPLOAD = '/api/v1/zones/photo';

function photoFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, 'photos');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

/** A raw GET whose path is sent exactly as written (no client-side `..` normalisation). */
function rawGet(port: number, rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('POST /zones/photo', () => {
  it.each([
    ['png', 'lawn.png', 'image/png', PNG_1X1],
    ['jpg', 'lawn.jpeg', 'image/jpeg', JPEG_MINIMAL],
    ['gif', 'lawn.gif', 'image/gif', GIF_1X1],
    ['webp', 'lawn.webp', 'image/webp', WEBP_1X1],
  ])(
    'stores a %s and serves it back with its type, nosniff and private caching',
    async (ext, name, type, bytes) => {
      const { port, dataDir } = await boot();
      const base = `http://127.0.0.1:${port}`;
      const res = await request(base)
        .post(UPLOAD)
        .attach('file', bytes, { filename: name, contentType: type });
      expect(res.status).toBe(201);
      const { url, filename } = res.body as { url: string; filename: string };
      expect(filename).toMatch(new RegExp(`^[a-f0-9]{32}\\.${ext}$`));
      // Relative, so it resolves under an ingress prefix too.
      expect(url).toBe(`site/photos/${filename}`);
      expect(fs.readFileSync(path.join(dataDir, 'photos', filename))).toEqual(bytes);

      const served = await request(base)
        .get(`/${url}`)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe(type);
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['cache-control']).toBe('private, max-age=86400');
      expect(served.headers['content-security-policy']).toContain("default-src 'none'");
      expect(served.body).toEqual(bytes);
    },
  );

  it('names the file after the sniffed type when the declared extension disagrees', async () => {
    const { port } = await boot();
    const res = await request(`http://127.0.0.1:${port}`)
      .post(UPLOAD)
      .attach('file', PNG_1X1, { filename: 'really-a-png.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(201);
    expect(res.body.filename).toMatch(/\.png$/);
  });

  it('takes exactly 10 MB and refuses 10 MB + 1 byte with 413 photo_too_large', async () => {
    const { port, dataDir } = await boot();
    const base = `http://127.0.0.1:${port}`;
    const exact = Buffer.alloc(PHOTO_MAX_BYTES);
    PNG_1X1.copy(exact);
    const ok = await request(base).post(UPLOAD).attach('file', exact, { filename: 'big.png' });
    expect(ok.status).toBe(201);

    const over = Buffer.alloc(PHOTO_MAX_BYTES + 1);
    PNG_1X1.copy(over);
    const res = await request(base).post(UPLOAD).attach('file', over, { filename: 'big.png' });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('photo_too_large');
    expect(photoFiles(dataDir)).toEqual([ok.body.filename]);
  });

  it.each([
    ['SVG content under a .png name', SVG, 'lawn.png', 'image/png'],
    ['an .svg name over PNG bytes', PNG_1X1, 'lawn.svg', 'application/octet-stream'],
    ['a declared image/svg+xml type', PNG_1X1, 'lawn', 'image/svg+xml'],
    ['HTML disguised as .png', HTML, 'lawn.png', 'image/png'],
    ['an unknown type', Buffer.from('%PDF-1.7 not an image'), 'lawn.png', 'image/png'],
  ])('refuses %s with 415 naming the accepted types', async (_what, bytes, filename, contentType) => {
    const { port, dataDir } = await boot();
    const res = await request(`http://127.0.0.1:${port}`)
      .post(UPLOAD)
      .attach('file', bytes, { filename, contentType });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('photo_type_unsupported');
    expect(res.body.error).toContain('jpg, jpeg, png, gif, webp');
    expect(res.body.accepted).toEqual(['jpg', 'jpeg', 'png', 'gif', 'webp']);
    expect(photoFiles(dataDir)).toEqual([]);
  });

  it('answers 400 invalid_body without a file in the field "file"', async () => {
    const { port, dataDir } = await boot();
    const base = `http://127.0.0.1:${port}`;
    const wrongField = await request(base).post(UPLOAD).attach('photo', PNG_1X1, { filename: 'a.png' });
    const textField = await request(base).post(UPLOAD).field('file', 'not a file');
    const twoFiles = await request(base)
      .post(UPLOAD)
      .attach('file', PNG_1X1, { filename: 'a.png' })
      .attach('file', PNG_1X1, { filename: 'b.png' });
    const json = await request(base).post(UPLOAD).send({ file: 'x' });
    const empty = await request(base).post(UPLOAD).attach('file', Buffer.alloc(0), { filename: 'a.png' });
    for (const res of [wrongField, textField, twoFiles, json, empty]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
    expect(wrongField.body.error).toContain('"file"');
    expect(photoFiles(dataDir)).toEqual([]);
  });

  it('is the only route that takes multipart bodies', async () => {
    const { port } = await boot();
    const res = await request(`http://127.0.0.1:${port}`)
      .post('/api/v1/config/preview')
      .attach('file', PNG_1X1, { filename: 'a.png' });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });
});

describe('GET /site/photos/{name}', () => {
  it('answers 404 for unknown names and never leaves the photo directory', async () => {
    const { port, dataDir } = await boot();
    fs.writeFileSync(path.join(dataDir, 'secret.png'), PNG_1X1);
    const base = `http://127.0.0.1:${port}`;
    const upload = await request(base).post(UPLOAD).attach('file', PNG_1X1, { filename: 'a.png' });
    expect(upload.status).toBe(201);
    const unknown = await request(base).get(`/site/photos/${'0'.repeat(32)}.png`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('photo_not_found');
    for (const attempt of [
      '/site/photos/..%2Fsecret.png',
      '/site/photos/..%2F..%2Fconfig.toml',
      '/site/photos/%2e%2e%2fsecret.png',
      '/site/photos/../secret.png',
      '/site/photos/../../etc/passwd',
      '/site/photos/..%5csecret.png',
      `/site/photos/${(upload.body.filename as string).toUpperCase()}`,
      `/site/photos/${upload.body.filename as string}%00.png`,
      '/site/photos/',
    ]) {
      const res = await rawGet(port, attempt);
      expect([attempt, res.status]).toEqual([attempt, 404]);
      expect(res.body).not.toContain('PNG');
    }
  });

  it('needs credentials on an auth-required instance (401 anonymous, 200 with a token or session)', async () => {
    const { port, service } = await boot({ configToml: configToml({ mode: 'required' }) });
    const owner = await seedOwner(service);
    const base = `http://127.0.0.1:${port}`;
    const anonymousUpload = await request(base).post(UPLOAD).attach('file', PNG_1X1, { filename: 'a.png' });
    expect(anonymousUpload.status).toBe(401);

    const upload = await request(base)
      .post(UPLOAD)
      .set('Authorization', `Bearer ${owner.token}`)
      .attach('file', PNG_1X1, { filename: 'a.png' });
    expect(upload.status).toBe(201);
    const url = `/${upload.body.url as string}`;

    const anonymous = await request(base).get(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('unauthorized');
    const withToken = await request(base).get(url).set('Authorization', `Bearer ${owner.token}`);
    expect(withToken.status).toBe(200);
    expect(withToken.headers['content-type']).toBe('image/png');
    const withSession = await request(base).get(url).set('Cookie', `service_session=${owner.session}`);
    expect(withSession.status).toBe(200);
    const expired = await request(base).get(url).set('Cookie', `service_session=${owner.expiredSession}`);
    expect(expired.status).toBe(401);
  });
});
