/**
 * Secrets that arrive in URLs never reach a log line, at any level: an SSE
 * client's `access_token`, a gateway's `PASSKEY` or Wunderground `PASSWORD`,
 * a webhook's `?token=`, any `api_key`. A query parameter whose name says it
 * carries a secret keeps its name and loses its value (`PASSKEY=***`), so the
 * line still says which parameter came.
 */

const SECRET_NAMES = new Set([
  'access_token',
  'token',
  'auth',
  'auth_token',
  'passkey',
  'password',
  'pass',
  'passwd',
  'pwd',
  'secret',
  'client_secret',
  'key',
  'apikey',
  'api_key',
  'app_key',
  'application_key',
  'sig',
  'signature',
]);
const SECRET_PART = /token|secret|password|passkey|api_?key/i;

export const MASK = '***';

export function isSecretParameter(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase()) || SECRET_PART.test(name);
}

/** The URL (or path with query) with secret-bearing query values masked; credentials in `user:pass@` too. */
export function maskUrlSecrets(url: string): string {
  const withoutUserInfo = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, `$1${MASK}@`);
  const start = withoutUserInfo.indexOf('?');
  if (start < 0) return withoutUserInfo;
  const end = withoutUserInfo.indexOf('#', start);
  const query = withoutUserInfo.slice(start + 1, end < 0 ? undefined : end);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq >= 0 && isSecretParameter(decodeName(pair.slice(0, eq)))
        ? `${pair.slice(0, eq + 1)}${MASK}`
        : pair;
    })
    .join('&');
  return `${withoutUserInfo.slice(0, start + 1)}${masked}${end < 0 ? '' : withoutUserInfo.slice(end)}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
