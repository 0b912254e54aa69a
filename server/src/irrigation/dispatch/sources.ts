import type { RunSource } from '../../store/runs';

/**
 * Run record `source` (spec 3) by who asked and whether the controller is
 * real. Evidence rules follow from these names: `manual` and `ha_refresher`
 * rows count as water once completed; `dry_run` rows are pretend water;
 * `smart_morning` rows are skip markers.
 *
 * - `ha_refresher`: the service's own engine-driven dispatch (the run window's
 *   session) and the hardware rows the observer writes from controller
 *   readback. The name is the contract's.
 * - `manual`: a run asked for through POST /irrigation/action.
 * - `dry_run` / `dry_run:manual`: the same on a dry-run controller.
 */

export type Requester = 'schedule' | 'manual';

export function runSource(requester: Requester, simulated: boolean): RunSource {
  if (requester === 'manual') return simulated ? 'dry_run:manual' : 'manual';
  return simulated ? 'dry_run' : 'ha_refresher';
}

export const OBSERVED_SOURCE: RunSource = 'ha_refresher';
export const SKIP_MARKER_SOURCE: RunSource = 'smart_morning';
