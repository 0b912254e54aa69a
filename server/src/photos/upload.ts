import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../core/logger';
import { ApiError, badRequest } from '../http/errors';
import { isMultipartRequest, MultipartBodyTooLarge, multipartParts } from '../http/multipart';
import { ACCEPTED_EXTENSIONS, declaredSvg, sniffPhoto } from './sniff';
import { PhotoStore } from './store';

/**
 * The work of POST /zones/photo, loaded on the first upload (routes/zones.ts
 * registers the route at boot and requires this module lazily; most
 * instances never take a photo, and the multipart parser is not free at idle).
 *
 * @fastify/multipart does the parsing, through http/multipart.ts (shared
 * with the backup restore).
 */

export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;

const LIMITS = { fileSize: PHOTO_MAX_BYTES, files: 1, fields: 0 };
const EXPECTED = 'expected multipart/form-data with one file in the field "file"';

function unsupported(detail: string): ApiError {
  return new ApiError(
    415,
    'photo_type_unsupported',
    `${detail}; accepted: ${ACCEPTED_EXTENSIONS.join(', ')} (JPEG, PNG, GIF, WebP images; SVG is not accepted)`,
    { accepted: [...ACCEPTED_EXTENSIONS] },
  );
}

/** Multipart and busboy failures: the size limit is a 413, anything else the client sent wrong a 400. */
function mapUploadError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE' || err instanceof MultipartBodyTooLarge) {
    return new ApiError(
      413,
      'photo_too_large',
      `the photo is larger than ${PHOTO_MAX_BYTES / 1024 / 1024} MB`,
    );
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return badRequest('invalid_body', `${EXPECTED} and nothing else`);
  }
  if (
    code === 'FST_PROTO_VIOLATION' ||
    code === 'FST_MP_PREMATURE_CLOSE' ||
    (err instanceof Error && /multipart|boundary|unexpected end/i.test(err.message))
  ) {
    return badRequest('invalid_body', `${EXPECTED}: the multipart body could not be read`);
  }
  return err;
}

interface Upload {
  bytes: Buffer;
  filename: string;
}

async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!isMultipartRequest(request)) throw badRequest('invalid_body', EXPECTED);
  let upload: Upload | null = null;
  try {
    for await (const part of multipartParts(request, LIMITS)) {
      if (part.type !== 'file' || part.fieldname !== 'file' || upload) {
        if (part.type === 'file') part.file.resume();
        throw badRequest('invalid_body', `${EXPECTED}; got the ${part.type} field "${part.fieldname}"`);
      }
      if (declaredSvg(part.filename, part.mimetype)) {
        part.file.resume();
        throw unsupported('SVG is not accepted');
      }
      upload = { bytes: await part.toBuffer(), filename: part.filename };
    }
  } catch (err) {
    throw mapUploadError(err);
  }
  if (!upload) throw badRequest('invalid_body', `${EXPECTED}; the body holds no file`);
  if (upload.bytes.length === 0) throw badRequest('invalid_body', 'the file is empty');
  return upload;
}

/**
 * Reads, sniffs and stores the photo; 201 `{url, filename}`. The sniffed type
 * names the stored file: a declared extension that disagrees is ignored.
 */
export async function handlePhotoUpload(
  photos: PhotoStore,
  logger: Logger,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const upload = await readUpload(request);
  const sniffed = sniffPhoto(upload.bytes);
  if (!sniffed.ok) {
    throw unsupported(
      sniffed.reason === 'markup'
        ? 'the file is markup (SVG, XML or HTML), not an image'
        : 'the file is not a recognised image',
    );
  }
  const stored = photos.save(upload.bytes, sniffed.type);
  logger.info(
    { photo: stored.name, bytes: upload.bytes.length, declared: upload.filename },
    'zone photo stored',
  );
  return reply.status(201).send({ url: `site/photos/${stored.name}`, filename: stored.name });
}
