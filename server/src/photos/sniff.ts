/**
 * What an uploaded zone photo really is (spec 4.8, 8): JPEG, PNG, GIF or WebP,
 * decided by the file's magic bytes, never by its name or declared type. SVG,
 * XML and HTML (anything that starts like markup) are refused by content, so a
 * `.png` that is really SVG or HTML never reaches the photo directory: served
 * back from our origin it could run script.
 *
 * The stored extension is the sniffed type's. A declared extension that
 * disagrees (a PNG named `.jpg`) does not refuse the upload: the sniffed type
 * wins. Only a declared SVG (`.svg` or `image/svg+xml`) is refused outright,
 * whatever the bytes, so a client learns SVG is not accepted.
 */

export type PhotoType = 'jpg' | 'png' | 'gif' | 'webp';

/** The extensions spec 8 accepts (jpeg is stored as jpg). */
export const ACCEPTED_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp'] as const;

export const PHOTO_CONTENT_TYPES: Readonly<Record<PhotoType, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
};

export type SniffResult = { ok: true; type: PhotoType } | { ok: false; reason: 'markup' | 'unknown' };

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

export function sniffPhoto(bytes: Uint8Array): SniffResult {
  if (startsWith(bytes, PNG)) return { ok: true, type: 'png' };
  if (startsWith(bytes, JPEG)) return { ok: true, type: 'jpg' };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return { ok: true, type: 'gif' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return { ok: true, type: 'webp' };
  return { ok: false, reason: looksLikeMarkup(bytes) ? 'markup' : 'unknown' };
}

/** True when the client itself says the file is SVG (by name or by declared type). */
export function declaredSvg(filename: string | undefined, mimetype: string | undefined): boolean {
  return /\.svgz?$/i.test(filename?.trim() ?? '') || /svg/i.test(mimetype ?? '');
}

/**
 * Markup: after an optional UTF-8/UTF-16 byte-order mark and whitespace, the
 * first character is `<` (`<svg`, `<?xml`, `<!DOCTYPE html>`, `<html>`,
 * `<script>`...), or an SVG or HTML root appears in the first kilobyte.
 */
function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = decodeHead(bytes.subarray(0, 1024));
  const trimmed = head.replace(/^[\uFEFF\s\0]+/, '');
  if (trimmed.startsWith('<')) return true;
  return /<(?:svg|html|script|\?xml|!doctype)\b/i.test(head);
}

function decodeHead(head: Uint8Array): string {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le').decode(head.subarray(2));
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be').decode(head.subarray(2));
  // Strip NULs so UTF-16 without a mark still shows its ASCII.
  return new TextDecoder('utf-8').decode(head).replace(/\0/g, '');
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  if (bytes.length < to) return '';
  return String.fromCharCode(...bytes.subarray(from, to));
}
