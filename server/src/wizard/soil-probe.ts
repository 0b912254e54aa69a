import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLocalNetwork } from '../auth/network';
import { epochSeconds, type Clock } from '../core/clock';
import { EXTRA } from '../weather/sources/ecowitt/batch';
import { parseLivedata } from '../weather/sources/ecowitt/livedata';
import { gatewayBaseUrl } from '../weather/sources/ecowitt/local-poller';
import { describeFetchFailure, WizardError } from './wizard-error';
import { compareText } from '../core/compare';

/**
 * POST /wizard/probe_soil: reads an Ecowitt gateway's live soil-moisture
 * channels through its LAN API (`GET /get_livedata_info`, parsed by the
 * ecowitt_local source's own parser).
 *
 * Only LAN targets: the host is resolved first and every address must be
 * loopback, RFC 1918, link-local or ULA (422 `host_not_lan` otherwise; 422
 * `host_required` / `host_invalid` for an empty or unparsable host). The
 * request then goes to the resolved address itself, so a name cannot resolve
 * to something else between the check and the call. A name that does not
 * resolve, a refused or timed-out call, a non-2xx or an unparsable answer is
 * 502 `gateway_unreachable`.
 *
 * Answer: `{host, address, channels: [{channel, key, name, moisture_pct,
 * battery, sensor_id}]}` sorted by channel; `sensor_id` is the zone
 * `soil_sensor_id` form `source:<source_id>:soil_moisture_pct:<n>` when a
 * source_id was given, else null.
 */

export const SOIL_PROBE_TIMEOUT_MS = 5000;

export interface SoilChannel {
  channel: string;
  key: string;
  name: string;
  moisture_pct: number;
  /** The gateway's raw battery code, when it sent one. */
  battery: number | null;
  sensor_id: string | null;
}

export interface SoilProbeResult {
  host: string;
  address: string;
  channels: SoilChannel[];
}

export interface SoilProbeDeps {
  fetch: typeof fetch;
  clock: Clock;
  /** Name resolution (tests may stub it). */
  resolve?: (hostname: string) => Promise<string[]>;
  timeoutMs?: number;
}

const resolveAll = async (hostname: string): Promise<string[]> =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export async function probeSoil(
  deps: SoilProbeDeps,
  host: string,
  sourceId: string | null,
): Promise<SoilProbeResult> {
  const url = gatewayUrl(host);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(hostname) ? [hostname] : await (deps.resolve ?? resolveAll)(hostname);
  } catch (err) {
    throw new WizardError(
      502,
      'gateway_unreachable',
      `cannot resolve ${hostname}: ${describeFetchFailure(err, 0)}`,
    );
  }
  const outside = addresses.filter((address) => !isLocalNetwork(address));
  if (addresses.length === 0 || outside.length > 0) {
    throw new WizardError(
      422,
      'host_not_lan',
      `${hostname} is not on the local network; only LAN gateways are probed`,
      {
        addresses,
      },
    );
  }
  const address = addresses[0] as string;
  const target = new URL(url.href);
  target.hostname = isIP(address) === 6 ? `[${address}]` : address;
  target.pathname = '/get_livedata_info';
  const body = await fetchJson(deps, target.href);
  let extras;
  try {
    extras =
      parseLivedata(body, {
        sourceId: sourceId ?? 'probe',
        observedEpoch: epochSeconds(deps.clock),
        timezone: 'UTC',
      }).extras ?? [];
  } catch (err) {
    throw new WizardError(
      502,
      'gateway_unreachable',
      `the gateway's live data did not parse: ${(err as Error).message}`,
    );
  }
  const prefix = `${EXTRA.soilMoisturePct}:`;
  const batteries = new Map(extras.map((extra) => [extra.key, extra.value]));
  const channels = extras
    .filter((extra) => extra.key.startsWith(prefix))
    .map((extra) => {
      const channel = extra.key.slice(prefix.length);
      return {
        channel,
        key: extra.key,
        name: extra.label ?? `Soil moisture CH${channel}`,
        moisture_pct: extra.value,
        battery: batteries.get(`${EXTRA.battery}:wh51:${channel}`) ?? null,
        sensor_id: sourceId ? `source:${sourceId}:${extra.key}` : null,
      };
    })
    .sort((a, b) => Number(a.channel) - Number(b.channel) || compareText(a.channel, b.channel));
  return { host: host.trim(), address, channels };
}

function gatewayUrl(host: string): URL {
  const trimmed = host.trim();
  if (trimmed === '') throw new WizardError(422, 'host_required', 'enter the gateway host or address');
  try {
    const url = new URL(gatewayBaseUrl(trimmed));
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== ''))
      throw new Error('path');
    return url;
  } catch {
    throw new WizardError(
      422,
      'host_invalid',
      `"${trimmed}" is not a host name or address (optionally :port)`,
    );
  }
}

async function fetchJson(deps: SoilProbeDeps, url: string): Promise<unknown> {
  const timeoutMs = deps.timeoutMs ?? SOIL_PROBE_TIMEOUT_MS;
  const where = new URL(url).host;
  let response: Response;
  try {
    response = await deps.fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new WizardError(
      502,
      'gateway_unreachable',
      `cannot reach ${where}: ${describeFetchFailure(err, timeoutMs)}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new WizardError(
      502,
      'gateway_unreachable',
      `${where} answered HTTP ${response.status} for /get_livedata_info`,
    );
  }
  try {
    return (await response.json()) as unknown;
  } catch {
    throw new WizardError(
      502,
      'gateway_unreachable',
      `${where} answered /get_livedata_info with something other than JSON`,
    );
  }
}
