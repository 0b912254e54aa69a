import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors';
import { isMultipartRequest, MultipartBodyTooLarge, multipartParts } from '../../http/multipart';
import { refuse } from './restore-error';

/**
 * Streams the one file of a restore upload (multipart, one file part under
 * any field name; a second file part is refused) to
 * `<work dir>/upload`, never into memory: a bundle holds the whole history.
 */

const EXPECTED = 'expected multipart/form-data with one file (a backup bundle, a config or a database)';

export interface Upload {
  path: string;
  filename: string;
  bytes: number;
}

export async function receiveUpload(
  request: FastifyRequest,
  workDir: string,
  maxBytes: number,
): Promise<Upload> {
  if (!isMultipartRequest(request)) throw refuse('invalid_body', EXPECTED);
  const limits = { fileSize: maxBytes, files: 1, fields: 0 };
  let upload: Upload | null = null;
  try {
    for await (const part of multipartParts(request, limits)) {
      // Any field name: the spec names `file`, but clients and scripts name it as they like.
      if (part.type !== 'file' || upload) {
        if (part.type === 'file') part.file.resume();
        throw refuse('invalid_body', `${EXPECTED}; got the ${part.type} field "${part.fieldname}"`);
      }
      const path = join(workDir, 'upload');
      await pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
      if (part.file.truncated) throw tooLarge(maxBytes);
      upload = { path, filename: part.filename, bytes: part.file.bytesRead };
    }
  } catch (err) {
    throw mapUploadError(err, maxBytes);
  }
  if (!upload) throw refuse('invalid_body', `${EXPECTED}; the body holds no file`);
  if (upload.bytes === 0) throw refuse('invalid_body', 'the file is empty');
  return upload;
}

function tooLarge(maxBytes: number): ApiError {
  return refuse('backup_too_large', `the upload is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`, {
    max_bytes: maxBytes,
  });
}

function mapUploadError(err: unknown, maxBytes: number): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE' || err instanceof MultipartBodyTooLarge) return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return refuse('invalid_body', `${EXPECTED} and nothing else`);
  }
  if (
    code === 'FST_PROTO_VIOLATION' ||
    code === 'FST_MP_PREMATURE_CLOSE' ||
    (err instanceof Error && /multipart|boundary|unexpected end|premature/i.test(err.message))
  ) {
    return refuse('backup_truncated', `${EXPECTED}: the upload ended before its multipart body did`);
  }
  return err;
}
