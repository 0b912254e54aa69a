import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import {
  activeOverrideTomorrow,
  isPaused,
  overrideTomorrowTarget,
  resolveControls,
  type ControlResolution,
} from '../../../server/src/irrigation/controls/resolve';
import {
  neutralControls,
  type ControlsState,
  type OverrideMode,
} from '../../../server/src/irrigation/controls/types';

const TZ = 'America/New_York';
/** Monday 2026-06-15 21:00 EDT. */
const NOW = DateTime.fromISO('2026-06-15T21:00', { zone: zoneFor(TZ) }).toSeconds();
const TODAY = '2026-06-15';
const TOMORROW = '2026-06-16';
const ZONE = 'front_lawn';

type PauseCase = 'off' | 'timed' | 'expired' | 'toggle';
type TomorrowCase = 'none' | 'skip' | 'run' | 'run_other_day';

function state(
  pause: PauseCase,
  tomorrow: TomorrowCase,
  zone: OverrideMode,
  global: OverrideMode,
): ControlsState {
  const s = neutralControls();
  if (pause === 'timed') s.pause_until_epoch = NOW + 3600;
  if (pause === 'expired') s.pause_until_epoch = NOW - 1;
  if (pause === 'toggle') s.toggles.irrigation_pause = true;
  if (tomorrow !== 'none') {
    s.override_tomorrow = tomorrow === 'skip' ? 'skip' : 'run';
    s.override_tomorrow_date = tomorrow === 'run_other_day' ? '2026-06-20' : TOMORROW;
  }
  if (zone !== 'auto') s.zone_overrides[ZONE] = zone;
  s.global_override = global;
  return s;
}

/** The precedence written out as the spec and the brief state it: the first layer that speaks wins. */
function expected(
  pause: PauseCase,
  tomorrow: TomorrowCase,
  zone: OverrideMode,
  global: OverrideMode,
): Pick<ControlResolution, 'decision' | 'source' | 'reason_code'> {
  if (pause === 'timed' || pause === 'toggle')
    return { decision: 'skip', source: 'pause', reason_code: 'paused' };
  if (tomorrow === 'skip') {
    return { decision: 'skip', source: 'override_tomorrow', reason_code: 'override_tomorrow_skip' };
  }
  if (tomorrow === 'run') {
    return { decision: 'water', source: 'override_tomorrow', reason_code: 'override_tomorrow_run' };
  }
  if (zone !== 'auto') {
    return {
      decision: zone === 'run' ? 'water' : 'skip',
      source: 'zone_override',
      reason_code: `zone_override_${zone}`,
    };
  }
  if (global !== 'auto') {
    return {
      decision: global === 'run' ? 'water' : 'skip',
      source: 'global_override',
      reason_code: `global_override_${global}`,
    };
  }
  return { decision: 'engine', source: 'engine', reason_code: 'engine' };
}

const PAUSES: PauseCase[] = ['off', 'timed', 'expired', 'toggle'];
const TOMORROWS: TomorrowCase[] = ['none', 'skip', 'run', 'run_other_day'];
const MODES: OverrideMode[] = ['auto', 'skip', 'run'];
const TABLE = PAUSES.flatMap((p) =>
  TOMORROWS.flatMap((t) => MODES.flatMap((z) => MODES.map((g) => [p, t, z, g] as const))),
);

describe('resolveControls: precedence table', () => {
  it('covers every combination', () => {
    expect(TABLE).toHaveLength(4 * 4 * 3 * 3);
  });

  it.each(TABLE)('pause %s, tomorrow %s, zone %s, global %s', (pause, tomorrow, zone, global) => {
    const result = resolveControls({
      controls: state(pause, tomorrow, zone, global),
      zone: ZONE,
      dateLocal: TOMORROW,
      now: NOW,
      timezone: TZ,
    });
    expect(result).toMatchObject(expected(pause, tomorrow, zone, global));
    expect(result.reason.length).toBeGreaterThan(0);
  });
});

describe('resolveControls: details', () => {
  const base = { zone: ZONE, now: NOW, timezone: TZ };

  it('pause wins over every run override', () => {
    const s = state('timed', 'run', 'run', 'run');
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW })).toEqual({
      decision: 'skip',
      source: 'pause',
      reason_code: 'paused',
      reason: 'irrigation is paused until 2026-06-15T22:00:00-04:00',
    });
    const toggled = state('toggle', 'none', 'auto', 'auto');
    expect(resolveControls({ ...base, controls: toggled, dateLocal: TOMORROW }).reason).toBe(
      'irrigation is paused',
    );
  });

  it('checks the pause against the run time when given', () => {
    const s = state('timed', 'none', 'auto', 'auto');
    const runAfterPause = NOW + 7200;
    expect(
      resolveControls({ ...base, controls: s, dateLocal: TOMORROW, runEpoch: runAfterPause }).source,
    ).toBe('engine');
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW, runEpoch: NOW + 3599 }).source).toBe(
      'pause',
    );
    // pause_until equal to the moment asked about has ended.
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW, runEpoch: NOW + 3600 }).source).toBe(
      'engine',
    );
  });

  it('applies the tomorrow override only on its target date', () => {
    const s = state('off', 'skip', 'run', 'auto');
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW }).source).toBe('override_tomorrow');
    expect(resolveControls({ ...base, controls: s, dateLocal: TODAY }).source).toBe('zone_override');
    expect(resolveControls({ ...base, controls: s, dateLocal: '2026-06-17' }).source).toBe('zone_override');
  });

  it('keeps the stored target date after midnight (the override set last night applies today)', () => {
    const s = state('off', 'skip', 'auto', 'auto');
    const afterMidnight = NOW + 4 * 3600; // Tuesday 01:00
    const result = resolveControls({ ...base, now: afterMidnight, controls: s, dateLocal: TOMORROW });
    expect(result.source).toBe('override_tomorrow');
    expect(
      resolveControls({ ...base, now: afterMidnight, controls: s, dateLocal: '2026-06-17' }).source,
    ).toBe('engine');
  });

  it('reads an override without a stored date as the day after now', () => {
    const s = neutralControls();
    s.override_tomorrow = 'run';
    expect(overrideTomorrowTarget(s, NOW, TZ)).toEqual({ mode: 'run', date: TOMORROW });
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW }).decision).toBe('water');
    expect(resolveControls({ ...base, controls: s, dateLocal: TODAY }).decision).toBe('engine');
  });

  it('falls back from a zone in auto to the global override, and other zones ignore a zone override', () => {
    const s = state('off', 'none', 'skip', 'run');
    expect(resolveControls({ ...base, controls: s, dateLocal: TOMORROW }).decision).toBe('skip');
    expect(resolveControls({ ...base, zone: 'back_yard', controls: s, dateLocal: TOMORROW })).toMatchObject({
      decision: 'water',
      source: 'global_override',
    });
  });
});

describe('activeOverrideTomorrow and isPaused', () => {
  it('shows the tomorrow override until its target date has ended', () => {
    const s = state('off', 'skip', 'auto', 'auto');
    expect(activeOverrideTomorrow(s, NOW, TZ)).toBe('skip');
    expect(activeOverrideTomorrow(s, NOW + 20 * 3600, TZ)).toBe('skip'); // Tuesday 17:00
    expect(activeOverrideTomorrow(s, NOW + 27 * 3600, TZ)).toBe('none'); // Wednesday 00:00
    expect(activeOverrideTomorrow(neutralControls(), NOW, TZ)).toBe('none');
  });

  it('is paused by the toggle or a timed pause that runs past the moment', () => {
    expect(isPaused(state('off', 'none', 'auto', 'auto'), NOW)).toBe(false);
    expect(isPaused(state('expired', 'none', 'auto', 'auto'), NOW)).toBe(false);
    expect(isPaused(state('timed', 'none', 'auto', 'auto'), NOW)).toBe(true);
    expect(isPaused(state('toggle', 'none', 'auto', 'auto'), NOW)).toBe(true);
  });
});
