/**
 * What a controller's readback proves about one open valve (issue 17: run
 * records follow evidence). Pure: fed each reading and each failed reading,
 * it answers the end of the water the evidence supports and who cut a run
 * short. The rules, shared by the dispatcher's request row and the observer's
 * hardware row so the two never disagree:
 *
 * - A valve is credited from its start to the first reading that saw it
 *   closed, never past its planned end (a self-timed controller closed it
 *   there; later readings only found out).
 * - When readings stopped in between (a failed readback, an outage) the
 *   credit ends at the last reading that saw it open: nothing unobserved is
 *   credited. A reading that sees it open again bridges the gap.
 * - When the device booted after the valve opened (OpenSprinkler `lupt`), the
 *   restart closed it: the credit ends at the last reading that saw it open.
 */

export type CutBy = 'controller' | 'outage' | 'restart';

export interface ReadbackEvidence {
  /** A reading reported this valve at all (a controller may read back some stations only). */
  covered: boolean;
  /** The first reading that saw the valve open; null until one did (a queued station). */
  firstOpen: number | null;
  /** The last reading that saw it open. */
  lastOpen: number | null;
  /** A readback failed after the last open reading (unbridged). */
  gap: boolean;
  /** The device's boot time when it booted after the valve opened. */
  rebootedAt: number | null;
}

export function freshEvidence(): ReadbackEvidence {
  return { covered: false, firstOpen: null, lastOpen: null, gap: false, rebootedAt: null };
}

/** Evidence for a valve already seen open at `epoch` (a run resumed at boot). */
export function seenOpenAt(epoch: number): ReadbackEvidence {
  return { covered: true, firstOpen: epoch, lastOpen: epoch, gap: false, rebootedAt: null };
}

/**
 * A successful reading: open, closed, or silent about this valve (`running`
 * undefined), at `epoch`, with the device's boot time when it reports one.
 */
export function noteReading(
  evidence: ReadbackEvidence,
  running: boolean | undefined,
  epoch: number,
  bootedEpoch: number | null,
  since: number,
): void {
  if (running !== undefined) evidence.covered = true;
  if (bootedEpoch !== null && bootedEpoch > since && evidence.rebootedAt === null) {
    evidence.rebootedAt = bootedEpoch;
  }
  if (!running || evidence.rebootedAt !== null) return;
  evidence.firstOpen ??= epoch;
  evidence.lastOpen = epoch;
  evidence.gap = false;
}

/** A failed reading: the valve's state is unknown from here until a reading succeeds. */
export function noteFailure(evidence: ReadbackEvidence): void {
  if (evidence.lastOpen !== null) evidence.gap = true;
}

/**
 * How much earlier than its planned end a valve may read closed and still have
 * run its full time. Controllers time their stations in whole seconds on their
 * own clocks and our epochs are whole seconds too, so a full run can read
 * closed up to about two seconds early; that is no cut (an "aborted, closed at
 * the controller 1 s early" would send the owner looking for a culprit).
 */
export const FULL_RUN_SLACK_S = 2;

/** The valve was reported closed at `closedAt`: the end of the credited water and what cut it. */
export function creditedEnd(
  evidence: ReadbackEvidence,
  start: number,
  closedAt: number,
  plannedEnd: number | null,
): { end: number; cutBy: CutBy | null } {
  const lastOpen = evidence.lastOpen ?? start;
  if (evidence.rebootedAt !== null) return { end: Math.max(start, lastOpen), cutBy: 'restart' };
  if (evidence.gap) return { end: Math.max(start, lastOpen), cutBy: 'outage' };
  const end = plannedEnd === null ? closedAt : Math.min(closedAt, plannedEnd);
  const early = plannedEnd !== null && closedAt < plannedEnd - FULL_RUN_SLACK_S;
  return { end: Math.max(start, end), cutBy: early ? 'controller' : null };
}

/** The note a cut-short row carries: who cut it and what is credited. */
export function cutNote(cutBy: CutBy, seconds: number, plannedSeconds: number | null): string {
  const credited = `${seconds} s observed open`;
  if (cutBy === 'restart') return `cut short by a controller restart: ${credited}`;
  if (cutBy === 'outage')
    return `readback was lost during the run: only the ${seconds} s observed open are credited`;
  const early = plannedSeconds === null ? '' : ` ${plannedSeconds - seconds} s before its planned end`;
  return `closed at the controller${early} (its app, a button, a program or another automation): ${credited}`;
}
