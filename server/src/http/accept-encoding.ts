/**
 * Whether an `Accept-Encoding` header admits gzip (RFC 9110 12.5.3): `gzip`
 * (or `x-gzip`) listed, else `*`, with a quality above 0. `gzip;q=0` refuses
 * it; an absent header gets the plain bytes (every client can read those).
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  let gzip: number | null = null;
  let any: number | null = null;
  for (const part of value.split(',')) {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (name === 'gzip' || name === 'x-gzip') gzip = quality(params);
    else if (name === '*') any = quality(params);
  }
  return (gzip ?? any ?? 0) > 0;
}

function quality(params: string[]): number {
  const q = params.find((param) => param.startsWith('q='));
  if (q === undefined) return 1;
  const value = Number(q.slice(2));
  return Number.isFinite(value) ? value : 0;
}
