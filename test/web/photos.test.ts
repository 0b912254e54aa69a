import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
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

/** What the client had sent when the answer came, and the answer's status and code. */
interface EarlyAnswer {
  sentBytes: number;
  status: number | null;
  code: string | null;
}

const HUNDRED_MB = 100 * 1024 * 1024;

/**
 * Sends a head, then up to 100 MB of body in 64 KB pieces (as fast as the
 * socket takes them), and stops at the first byte of an answer.
 */
function sendHuge(port: number, head: string, piece: (chunk: Buffer) => Buffer): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let sentBytes = 0;
    let answer = '';
    let answered = false;
    let settled = false;
    let patience: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(patience);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      const code = /"code":"([a-z_]+)"/.exec(answer);
      socket.destroy();
      resolve({ sentBytes, status: status ? Number(status[1]) : null, code: code ? code[1]! : null });
    };
    socket.on('data', (chunk: Buffer) => {
      answered = true;
      answer += chunk.toString('latin1');
      if (/\r\n\r\n[\s\S]*"code"/.test(answer)) finish();
    });
    socket.on('close', () => (answered ? finish() : undefined));
    socket.on('error', (err) =>
      answered ? finish() : reject(new Error(`${err.message} after ${sentBytes} bytes`)),
    );
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!answered && sentBytes < HUNDRED_MB) {
        sentBytes += chunk.length;
        if (!socket.write(piece(chunk))) return void socket.once('drain', pump);
      }
      // All 100 MB went out without an answer: give the service a moment, then report what it said.
      if (!answered) patience = setTimeout(finish, 3000);
    };
    socket.once('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

describe('POST /zones/photo refuses a huge body while it is still arriving', () => {
  const BOUNDARY = 'rc-boundary-7f3a';
  const fileHead =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n` +
    'Content-Type: image/png\r\n\r\n';
  const requestHead = (framing: string) =>
    `POST ${UPLOAD} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${framing}\r\n`;
  const chunked = (bytes: Buffer) =>
    Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
  /** 10 MB of limit, plus what the two sockets' buffers hold on loopback. */
  const REFUSED_BY = 24 * 1024 * 1024;

  it.each([
    ['a 100 MB file with a declared length', 'plain'],
    ['a 100 MB chunked file', 'chunked'],
    ['a chunked body of 100 MB of multipart preamble', 'preamble'],
  ])('%s: 413 photo_too_large long before the 100 MB are sent', async (_what, kind) => {
    const { port, dataDir } = await boot();
    let head: string;
    let piece = (bytes: Buffer) => bytes;
    if (kind === 'plain') {
      head = requestHead(`Content-Length: ${fileHead.length + HUNDRED_MB}\r\n`) + fileHead;
    } else {
      head = requestHead('Transfer-Encoding: chunked\r\n');
      piece = chunked;
      if (kind === 'chunked') head += chunked(Buffer.from(fileHead)).toString('latin1');
    }
    const answer = await sendHuge(port, head, piece);
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 413, code: 'photo_too_large' });
    expect(answer.sentBytes).toBeLessThan(REFUSED_BY);
    expect(photoFiles(dataDir)).toEqual([]);
  });
});
