import { epochSeconds, type Clock } from '../../core/clock';
import type { EventBus } from '../../core/bus';
import type { Logger } from '../../core/logger';
import { SERVICE_NAME, SERVICE_VERSION } from '../../core/version';
import { compareVersions, parseVersion } from './version-order';

/**
 * The opt-in release check behind GET /updates (spec 2.5 "Updates status").
 * Off unless the config's `updates.check_enabled` is true: then, a minute
 * after the start and once a day after that, it reads the releases feed
 * (`updates.releases_url`, release-feed.ts) and remembers the newest
 * release. A failed check retries with back-off: 1 h, then doubling, never
 * less often than the daily check. The last answer and the next attempt are
 * kept in the controls table, so a restart neither forgets the answer nor
 * checks again early (a service in a restart loop does not hammer the feed).
 * Switching the check off clears what it reported: `latest` stays null
 * unless the check is enabled.
 */

/** The feed read when `updates.releases_url` is absent or null: the project's GitHub releases. */
export const DEFAULT_RELEASES_URL = 'https://api.github.com/repos/raincheck/raincheck/releases/latest';
export const CHECK_INTERVAL_S = 86_400;
export const FIRST_CHECK_DELAY_S = 60;
export const RETRY_FIRST_S = 3_600;
export const TICK_MS = 60_000;
export const STATE_KEY = 'update_check';

export interface UpdateSettings {
  check_enabled: boolean;
  releases_url: string;
}

export interface UpdatesStatus {
  current: string;
  latest: string | null;
  update_available: boolean;
  release_url: string | null;
  checked_at_epoch: number | null;
  check_enabled: boolean;
}

/** What is kept between restarts. */
type CheckState = {
  releases_url: string;
  latest: string | null;
  release_url: string | null;
  checked_at_epoch: number | null;
  failures: number;
  next_attempt_epoch: number;
};

export interface StateStore {
  get(key: string): unknown;
  set(key: string, value: Record<string, string | number | null>): void;
}

export interface UpdateCheckerDeps {
  clock: Clock;
  logger: Logger;
  fetch: typeof fetch;
  settings: () => UpdateSettings | null;
  state: StateStore | null;
  bus?: EventBus;
  /** The running version (tests pin it); SERVICE_VERSION otherwise. */
  currentVersion?: string;
}

export class UpdateChecker {
  private state: CheckState | null;
  private timer: NodeJS.Timeout | null = null;
  private off: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private readonly log: Logger;

  constructor(private readonly deps: UpdateCheckerDeps) {
    this.log = deps.logger.child({ module: 'updates' });
    this.state = readState(deps.state?.get(STATE_KEY));
  }

  start(): void {
    this.off = this.deps.bus?.on('config.changed', () => this.tick()) ?? null;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
    this.tick();
  }

  stop(): void {
    this.off?.();
    this.off = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Checks when one is due (public so tests can drive the clock). Resolves when that check has ended. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    const settings = this.deps.settings();
    if (!settings?.check_enabled) return Promise.resolve();
    const now = this.now();
    const state = this.stateFor(settings, now);
    if (now < state.next_attempt_epoch) return Promise.resolve();
    this.running = this.check(settings, state).finally(() => (this.running = null));
    return this.running;
  }

  status(): UpdatesStatus {
    const current = this.currentVersion();
    const settings = this.deps.settings();
    const state = this.state;
    if (!settings?.check_enabled || !state || state.releases_url !== settings.releases_url) {
      return {
        current,
        latest: null,
        update_available: false,
        release_url: null,
        checked_at_epoch: null,
        check_enabled: settings?.check_enabled ?? false,
      };
    }
    return {
      current,
      latest: state.latest,
      update_available: newer(state.latest, current),
      release_url: state.latest === null ? null : state.release_url,
      checked_at_epoch: state.checked_at_epoch,
      check_enabled: true,
    };
  }

  private async check(settings: UpdateSettings, state: CheckState): Promise<void> {
    const now = this.now();
    try {
      const release = await loadReleaseFeed().fetchLatestRelease(
        this.deps.fetch,
        settings.releases_url,
        `${SERVICE_NAME}/${this.currentVersion()}`,
      );
      this.save({
        releases_url: settings.releases_url,
        latest: release.version.text,
        release_url: release.url,
        checked_at_epoch: now,
        failures: 0,
        next_attempt_epoch: now + CHECK_INTERVAL_S,
      });
      this.log.info(
        { latest: release.version.text, current: this.currentVersion() },
        'checked for a new release',
      );
    } catch (err) {
      const failures = state.failures + 1;
      const retryIn = Math.min(CHECK_INTERVAL_S, RETRY_FIRST_S * 2 ** (failures - 1));
      this.save({ ...state, failures, next_attempt_epoch: now + retryIn });
      this.log.warn(
        { reason: (err as Error).message, failures, retry_in_s: retryIn },
        'the release check failed; trying again later',
      );
    }
  }

  /** The kept state, or a fresh one (first check a minute from now) when none is kept for this feed. */
  private stateFor(settings: UpdateSettings, now: number): CheckState {
    if (this.state && this.state.releases_url === settings.releases_url) return this.state;
    const fresh: CheckState = {
      releases_url: settings.releases_url,
      latest: null,
      release_url: null,
      checked_at_epoch: null,
      failures: 0,
      next_attempt_epoch: now + FIRST_CHECK_DELAY_S,
    };
    this.save(fresh);
    return fresh;
  }

  private save(state: CheckState): void {
    this.state = state;
    this.deps.state?.set(STATE_KEY, state);
  }

  private now(): number {
    return epochSeconds(this.deps.clock);
  }

  private currentVersion(): string {
    return this.deps.currentVersion ?? SERVICE_VERSION;
  }
}

/** An update is available only when both versions parse and the latest is later. */
function newer(latest: string | null, current: string): boolean {
  if (latest === null) return false;
  const a = parseVersion(latest);
  const b = parseVersion(current);
  return a !== null && b !== null && compareVersions(a, b) > 0;
}

function readState(value: unknown): CheckState | null {
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Partial<CheckState>;
  if (typeof s.releases_url !== 'string' || typeof s.next_attempt_epoch !== 'number') return null;
  return {
    releases_url: s.releases_url,
    latest: typeof s.latest === 'string' ? s.latest : null,
    release_url: typeof s.release_url === 'string' ? s.release_url : null,
    checked_at_epoch: typeof s.checked_at_epoch === 'number' ? s.checked_at_epoch : null,
    failures: typeof s.failures === 'number' ? s.failures : 0,
    next_attempt_epoch: s.next_attempt_epoch,
  };
}

/** The feed reader loads with the first check: the check is off unless the config enables it. */
function loadReleaseFeed(): typeof import('./release-feed') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./release-feed') as typeof import('./release-feed');
}
