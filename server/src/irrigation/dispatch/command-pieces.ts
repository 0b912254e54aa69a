/**
 * One valve command opens a zone for at most RUN_SECONDS_MAX (7200 s): the
 * spec's clamp on a `run` action, and within what every controller kind
 * takes in one command (OpenSprinkler `/cm` up to 64800 s, Rachio
 * `zone/start` up to 10800 s). A planned run may be longer: `max_run_minutes`
 * allows 360 minutes, a fixed schedule 240, a depth more. Such a segment is
 * dispatched as consecutive pieces of at most RUN_SECONDS_MAX with no soak
 * between them, so the zone gets every planned second and each row says it
 * is a piece. Pure.
 */

export const RUN_SECONDS_MAX = 7200;

export interface Pieces {
  /** Seconds of each valve command, in order. */
  segments: number[];
  /** The soak after each command (0 between pieces of one segment; the cycle soak after its last). */
  soak_after_s: number[];
  /** Per command: why it is a piece of a longer segment; null when it is the whole segment. */
  notes: (string | null)[];
}

export function commandPieces(segments: readonly number[], soakS: number): Pieces {
  const out: Pieces = { segments: [], soak_after_s: [], notes: [] };
  segments.forEach((segment, i) => {
    const whole = Math.max(1, Math.round(segment));
    const count = Math.ceil(whole / RUN_SECONDS_MAX);
    for (let k = 0; k < count; k += 1) {
      const seconds = k < count - 1 ? RUN_SECONDS_MAX : whole - RUN_SECONDS_MAX * (count - 1);
      out.segments.push(seconds);
      out.soak_after_s.push(k < count - 1 ? 0 : i < segments.length - 1 ? soakS : 0);
      out.notes.push(
        count > 1
          ? `piece ${k + 1} of ${count} of a ${whole} s run: one valve command opens at most ${RUN_SECONDS_MAX} s`
          : null,
      );
    }
  });
  return out;
}
