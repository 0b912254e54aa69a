import { declaredSvg, sniffPhoto } from '../../server/src/photos/sniff';
import { PHOTO_NAME, PhotoStore } from '../../server/src/photos/store';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GIF_1X1, HTML, JPEG_MINIMAL, PNG_1X1, SVG, WEBP_1X1 } from './images';

describe('photo sniffing', () => {
  it('tells the four accepted types apart by their magic bytes', () => {
    expect(sniffPhoto(PNG_1X1)).toEqual({ ok: true, type: 'png' });
    expect(sniffPhoto(JPEG_MINIMAL)).toEqual({ ok: true, type: 'jpg' });
    expect(sniffPhoto(GIF_1X1)).toEqual({ ok: true, type: 'gif' });
    expect(sniffPhoto(WEBP_1X1)).toEqual({ ok: true, type: 'webp' });
  });

  it('calls SVG, XML and HTML markup, even behind a byte-order mark, whitespace or UTF-16', () => {
    expect(sniffPhoto(SVG)).toEqual({ ok: false, reason: 'markup' });
    expect(sniffPhoto(HTML)).toEqual({ ok: false, reason: 'markup' });
    expect(sniffPhoto(Buffer.from('\n\t <svg/>'))).toEqual({ ok: false, reason: 'markup' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<svg></svg>', 'utf16le')]);
    expect(sniffPhoto(utf16)).toEqual({ ok: false, reason: 'markup' });
    expect(sniffPhoto(Buffer.from('junk before <html><script>x</script>'))).toEqual({
      ok: false,
      reason: 'markup',
    });
  });

  it('refuses unknown bytes and truncated magic', () => {
    expect(sniffPhoto(Buffer.from('just some text'))).toEqual({ ok: false, reason: 'unknown' });
    expect(sniffPhoto(PNG_1X1.subarray(0, 5))).toEqual({ ok: false, reason: 'unknown' });
    expect(sniffPhoto(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toEqual({ ok: false, reason: 'unknown' });
    expect(sniffPhoto(Buffer.alloc(0))).toEqual({ ok: false, reason: 'unknown' });
  });

  it('sees a declared SVG by name or type', () => {
    expect(declaredSvg('lawn.SVG', 'application/octet-stream')).toBe(true);
    expect(declaredSvg('lawn.png', 'image/svg+xml')).toBe(true);
    expect(declaredSvg('lawn.png', 'image/png')).toBe(false);
    expect(declaredSvg(undefined, undefined)).toBe(false);
  });
});

describe('photo store', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-photos-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a random name with the sniffed extension and leaves no temp file', () => {
    const store = new PhotoStore(dir);
    const a = store.save(PNG_1X1, 'png');
    const b = store.save(PNG_1X1, 'png');
    expect(a.name).toMatch(PHOTO_NAME);
    expect(a.name).not.toBe(b.name);
    expect(fs.readFileSync(path.join(dir, 'photos', a.name))).toEqual(PNG_1X1);
    expect(fs.readdirSync(path.join(dir, 'photos')).sort()).toEqual([a.name, b.name].sort());
  });

  it('locates only names it could have issued', () => {
    const store = new PhotoStore(dir);
    const name = `${'a'.repeat(32)}.webp`;
    expect(store.locate(name)).toEqual({ path: path.join(dir, 'photos', name), contentType: 'image/webp' });
    for (const bad of [
      '../config.toml',
      `../${'a'.repeat(32)}.png`,
      `${'A'.repeat(32)}.png`,
      `${'a'.repeat(32)}.svg`,
      `${'a'.repeat(32)}.png.tmp-1-2`,
      `${'a'.repeat(31)}.png`,
      `${'a'.repeat(32)}.png/`,
    ]) {
      expect(store.locate(bad)).toBeNull();
    }
  });
});
