import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import type { Logger } from '../../../core/logger';
import type { WeatherField } from '../../fields';
import type { Reading, SourceContext, SourceKindDefinition, WeatherSource } from '../../source';
import { parseSourceConfig } from '../../source';
import { RAIN_GAUGES, type RainGauge } from './batch';
import { DailyRainGuard } from './daily-rain';
import { LightningState } from './lightning';
import { parseLivedata, parseVersion, type GatewayVersion } from './livedata';

/**
 * The `ecowitt_local` source: polls a gateway's LAN HTTP API
 * (`GET http://<host>/get_livedata_info`) every `poll_interval_s`. Every poll
 * reports contact (true, or false with a note); a failed, unparsable or empty
 * poll publishes nothing. Polls never overlap: the next one is scheduled when
 * the current one ends, keeping the cadence from its start.
 */

export const ECOWITT_LOCAL_KIND = 'ecowitt_local';
export const POLL_INTERVAL_DEFAULT_S = 60;
export const POLL_INTERVAL_MIN_S = 15;
export const POLL_INTERVAL_MAX_S = 3600;
/** Upper bound for one request; shorter when the poll interval is. */
const REQUEST_TIMEOUT_MS = 10_000;
/** A failed /get_version is retried at most this often. */
const VERSION_RETRY_S = 3600;

/** Host name, IPv4 or [IPv6], optional :port; an `http://` prefix and a trailing slash are tolerated. */
const HOST =
  /^(?:https?:\/\/)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::\d{1,5})?\/?$/;

export const ecowittLocalConfigSchema = lazySchema((z) =>
  z.looseObject({
    host: z.string().regex(HOST, 'expected a host name or IP address, optionally with :port (no path)'),
    poll_interval_s: z
      .number()
      .int()
      .min(POLL_INTERVAL_MIN_S)
      .max(POLL_INTERVAL_MAX_S)
      .default(POLL_INTERVAL_DEFAULT_S),
    rain_gauge: z.enum(RAIN_GAUGES).default('auto'),
  }),
);

export type EcowittLocalConfig = z.output<typeof ecowittLocalConfigSchema>;

export interface EcowittLocalOptions {
  host: string;
  pollIntervalMs: number;
  timeoutMs: number;
  rainGauge: RainGauge;
}

export function localOptionsFromConfig(config: EcowittLocalConfig): EcowittLocalOptions {
  const pollIntervalMs = config.poll_interval_s * 1000;
  return {
    host: config.host,
    pollIntervalMs,
    timeoutMs: Math.min(REQUEST_TIMEOUT_MS, pollIntervalMs),
    rainGauge: config.rain_gauge,
  };
}

/** "http://192.168.1.5/" -> "http://192.168.1.5"; a bare host gets http://. */
export function gatewayBaseUrl(host: string): string {
  const trimmed = host.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
}

export class EcowittLocalSource implements WeatherSource {
  readonly kind = ECOWITT_LOCAL_KIND;
  readonly id: string;
  private readonly baseUrl: string;
  private readonly log: Logger;
  private readonly lightning: LightningState;
  private readonly rainGuard: DailyRainGuard;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<boolean> | null = null;
  private abort: AbortController | null = null;
  private version: GatewayVersion | null = null;
  private versionTriedEpoch: number | null = null;
  private failing = false;

  constructor(
    private readonly ctx: SourceContext,
    private readonly options: EcowittLocalOptions,
  ) {
    this.id = ctx.id;
    this.baseUrl = gatewayBaseUrl(options.host);
    this.log = ctx.logger.child({ module: 'weather.ecowitt_local', source: ctx.id });
    this.lightning = new LightningState(Math.max(1800, (2 * options.pollIntervalMs) / 1000));
    this.rainGuard = new DailyRainGuard(ctx.location.timezone);
  }

  /** Polls at once, then every interval. Does not wait for the first poll. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops the schedule and abandons a poll in flight (it neither publishes nor reports contact). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort?.abort();
    await this.inFlight?.catch(() => undefined);
  }

  readingsAt(nowEpoch: number): Reading[] {
    return this.rainGuard.readingsAt(nowEpoch);
  }

  /**
   * One poll: fetch, parse, publish, report contact. Resolves true when it
   * published. Used by the schedule and callable directly.
   */
  pollOnce(): Promise<boolean> {
    if (this.inFlight) return this.inFlight;
    const run = this.poll().finally(() => {
      this.inFlight = null;
    });
    this.inFlight = run;
    return run;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const startedMs = performance.now();
      void this.pollOnce()
        .catch((err: unknown) => {
          // A throwing sink must not end the schedule.
          this.log.error({ err }, 'ecowitt poll crashed');
        })
        .finally(() => {
          const elapsed = performance.now() - startedMs;
          this.schedule(Math.max(0, this.options.pollIntervalMs - elapsed));
        });
    }, delayMs);
    this.timer.unref();
  }

  private async poll(): Promise<boolean> {
    const abort = new AbortController();
    this.abort = abort;
    try {
      let body: unknown;
      try {
        body = await this.getJson('/get_livedata_info', abort.signal);
      } catch (err) {
        if (abort.signal.aborted) return false;
        return this.fail(err instanceof PollFailure ? err.message : this.describe(err));
      }
      const observedEpoch = epochSeconds(this.ctx.clock);
      await this.refreshVersion(observedEpoch, abort.signal);
      if (abort.signal.aborted) return false;

      let batch;
      try {
        batch = parseLivedata(body, {
          sourceId: this.id,
          observedEpoch,
          timezone: this.ctx.location.timezone,
          rainGauge: this.options.rainGauge,
          host: this.options.host,
          version: this.version,
        });
      } catch (err) {
        return this.fail(`unparsable /get_livedata_info: ${(err as Error).message}`);
      }
      if ((batch.readings?.length ?? 0) === 0 && (batch.extras?.length ?? 0) === 0) {
        return this.fail('gateway answered without any live data');
      }
      batch = this.lightning.apply(batch, observedEpoch);
      this.rainGuard.note(batch);
      this.ctx.sink.publish(batch);
      this.ctx.sink.contact(true);
      if (this.failing) this.log.info('gateway answering again');
      this.failing = false;
      return true;
    } finally {
      if (this.abort === abort) this.abort = null;
    }
  }

  private fail(note: string): false {
    if (!this.failing) this.log.warn({ note }, 'ecowitt gateway poll failed');
    this.failing = true;
    this.ctx.sink.contact(false, note);
    return false;
  }

  /** GET a JSON document from the gateway; throws PollFailure with a human note. */
  private async getJson(path: string, stop: AbortSignal): Promise<unknown> {
    const signal = AbortSignal.any([stop, AbortSignal.timeout(this.options.timeoutMs)]);
    const response = await this.ctx.fetch(`${this.baseUrl}${path}`, {
      signal,
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new PollFailure(`gateway answered HTTP ${response.status} for ${path}`);
    }
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PollFailure(`gateway answer for ${path} is not JSON`);
    }
  }

  /** Model and firmware for /devices; best effort, never affects contact. */
  private async refreshVersion(nowEpoch: number, stop: AbortSignal): Promise<void> {
    if (this.version !== null) return;
    if (this.versionTriedEpoch !== null && nowEpoch - this.versionTriedEpoch < VERSION_RETRY_S) return;
    this.versionTriedEpoch = nowEpoch;
    try {
      this.version = parseVersion(await this.getJson('/get_version', stop));
    } catch (err) {
      this.log.debug({ err: this.describe(err) }, 'gateway /get_version unavailable');
    }
  }

  /** Duck-typed: errors from fetch may come from another realm (undici internals, test VMs). */
  private describe(err: unknown): string {
    const seconds = Math.round(this.options.timeoutMs / 100) / 10;
    const failure =
      typeof err === 'object' && err !== null
        ? (err as { name?: unknown; message?: unknown; cause?: unknown })
        : {};
    if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
      return `no answer from ${this.options.host} within ${seconds} s`;
    }
    const cause = failure.cause;
    const code =
      typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
    if (code) return `cannot reach ${this.options.host}: ${code}`;
    const message = typeof failure.message === 'string' ? failure.message : String(err);
    return `cannot reach ${this.options.host}: ${message}`;
  }
}

class PollFailure extends Error {}

const PROVIDES: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'illuminance_lx',
  'uv_index',
  'solar_w_m2',
  'rain_in_today',
  'rain_intensity_in_hr',
  'lightning_count_last_min',
  'lightning_avg_dist_mi',
  'leaf_wetness_pct',
];

export const ECOWITT_PROVIDES = PROVIDES;

export const ecowittLocalKind: SourceKindDefinition = {
  kind: ECOWITT_LOCAL_KIND,
  label: 'Ecowitt gateway (LAN polling)',
  provides: PROVIDES,
  configSchema: ecowittLocalConfigSchema,
  create(ctx: SourceContext): EcowittLocalSource {
    const config = parseSourceConfig(ecowittLocalConfigSchema, ctx);
    return new EcowittLocalSource(ctx, localOptionsFromConfig(config));
  },
};
