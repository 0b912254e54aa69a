import type { RaincheckConfig } from '../../config/schema';
import type { StoredRun } from '../../store/runs';
import { startOfLocalDate, localDateOf } from '../schedule/local-date';
import { restrictionRulesOf } from '../schedule/restriction-calendar';
import { gateRun } from '../schedule/restriction-gate';
import type { RestrictionGate } from './dispatcher';

/** The rows that put water on the ground (or were about to): what counts against a day's cap. */
const WATERING = new Set(['intended', 'running', 'completed', 'aborted']);

export interface RestrictionSourceDeps {
  config: () => Pick<RaincheckConfig, 'restrictions' | 'engine'> | null | undefined;
  /** Runs of one zone started in [from, to] (the run ledger's table); null without a database. */
  runs: { listWindow(from: number, to: number, zone?: string): StoredRun[] } | null;
  timezone: () => string;
}

/**
 * The dispatcher's restriction gate over the live config and the run ledger:
 * the zone's seconds today are those of its rows started on today's local
 * date (finished rows at their recorded seconds, open ones at their planned).
 * Without a database nothing is known to have run today: the day's cap then
 * bounds each run alone.
 */
export function restrictionGateOf(deps: RestrictionSourceDeps): RestrictionGate {
  return (zone, seconds, now) => {
    const config = deps.config();
    const rules = config ? restrictionRulesOf(config) : [];
    if (rules.length === 0) return { ok: true, seconds, note: null };
    const timezone = deps.timezone();
    const midnight = Math.floor(startOfLocalDate(localDateOf(now, timezone), timezone).seconds);
    const rows = deps.runs?.listWindow(midnight, now, zone) ?? [];
    const secondsToday = rows
      .filter((r) => r.zone === zone && WATERING.has(r.status))
      .reduce((sum, r) => sum + r.duration_s, 0);
    return gateRun({ rules, timezone, now, seconds, secondsToday });
  };
}
