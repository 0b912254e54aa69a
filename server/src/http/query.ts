import type { FastifyRequest } from 'fastify';
import { badRequest } from './errors';

/** Query parameter readers that answer 400 `invalid_query` naming the parameter. */

type Query = Record<string, string | string[] | undefined>;

function query(request: FastifyRequest): Query {
  return (request.query ?? {}) as Query;
}

export function queryString(request: FastifyRequest, name: string): string | undefined {
  const value = query(request)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw badRequest('invalid_query', `query parameter "${name}" must appear once`);
  return value;
}

export function queryNumber(request: FastifyRequest, name: string, min: number, max: number): number {
  const raw = queryString(request, name);
  if (raw === undefined || raw.trim() === '')
    throw badRequest('invalid_query', `query parameter "${name}" is required`);
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw badRequest('invalid_query', `query parameter "${name}" must be a number in ${min}..${max}`);
  }
  return value;
}

/** `?flag`, `?flag=1|true|yes|on` are true; absent or anything else is false. */
export function queryFlag(request: FastifyRequest, name: string): boolean {
  const value = query(request)[name];
  if (typeof value !== 'string') return false;
  return ['', '1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}
