/**
 * Where Home Assistant is, read from the environment. Kept apart from the link
 * itself so a standalone install without HA never loads the websocket client.
 */

export const ADDON_WEBSOCKET_URL = 'ws://supervisor/core/websocket';

export type HaLinkMode = 'addon' | 'standalone';

/** What `haLinkOptionsFromEnv` derives from the environment. */
export interface HaLinkEnvOptions {
  url: string;
  token: string;
  mode: HaLinkMode;
}

/**
 * Where Home Assistant is, from the environment: the add-on's SUPERVISOR_TOKEN
 * (through the Supervisor's proxy to core), else HA_URL + HA_TOKEN
 * (standalone; `http(s)://host:8123` becomes `ws(s)://host:8123/api/websocket`),
 * else null (not configured, or HA_URL unusable).
 */
export function haLinkOptionsFromEnv(
  vars: Readonly<Record<string, string | undefined>>,
): HaLinkEnvOptions | null {
  const supervisorToken = vars.SUPERVISOR_TOKEN?.trim();
  if (supervisorToken) return { url: addonWebsocketUrl(vars), token: supervisorToken, mode: 'addon' };
  const rawUrl = vars.HA_URL?.trim();
  const token = vars.HA_TOKEN?.trim();
  if (!rawUrl || !token) return null;
  const url = toWebsocketUrl(rawUrl);
  return url ? { url, token, mode: 'standalone' } : null;
}

/** Core's websocket through the Supervisor; SUPERVISOR_API (as addon/run.sh reads it) moves the Supervisor. */
function addonWebsocketUrl(vars: Readonly<Record<string, string | undefined>>): string {
  const api = vars.SUPERVISOR_API?.trim();
  if (!api) return ADDON_WEBSOCKET_URL;
  try {
    const url = new URL(api);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/core/websocket`;
    return url.toString();
  } catch {
    return ADDON_WEBSOCKET_URL;
  }
}

/** `http://ha.local:8123` -> `ws://ha.local:8123/api/websocket`; a websocket URL is kept. Null when unusable. */
export function toWebsocketUrl(raw: string): string | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  const protocols: Record<string, string> = {
    'http:': 'ws:',
    'https:': 'wss:',
    'ws:': 'ws:',
    'wss:': 'wss:',
  };
  const protocol = protocols[url.protocol];
  if (!protocol || !url.hostname) return null;
  url.protocol = protocol;
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/api/websocket')) url.pathname = path;
  else if (path.endsWith('/api')) url.pathname = `${path}/websocket`;
  else url.pathname = `${path}/api/websocket`;
  return url.toString();
}
