import type { FastifyRequest } from 'fastify';

/** The request announces a body (a length above zero, or a chunked one). */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}
