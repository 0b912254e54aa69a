import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { silentLogger } from '../../../server/src/core/logger';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { skipRulesSchema } from '../../../server/src/config/schema';
import {
  ControlsStore,
  MemoryControlsBackend,
  OVERRIDE_TOMORROW_DATE_KEY,
  decodeControls,
  effectiveSkipRules,
  zoneOverrideOf,
} from '../../../server/src/irrigation/controls/controls-store';
import { resolveControls } from '../../../server/src/irrigation/controls/resolve';
import { neutralControls, type ControlsState } from '../../../server/src/irrigation/controls/types';
import { CONTROL_KEYS } from '../../../server/src/store/controls';
import { Store } from '../../../server/src/store/store';

const TZ = 'America/New_York';
/** Monday 2026-06-15 21:00 EDT. */
const NOW = DateTime.fromISO('2026-06-15T21:00', { zone: zoneFor(TZ) }).toSeconds();

let dir = '';
let store: Store | null = null;

function open(): Store {
  store?.close();
  store = Store.open(path.join(dir, 'raincheck.db'), silentLogger());
  return store;
}

function controls(): ControlsStore {
  return new ControlsStore((store ?? open()).controls, TZ);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-controls-'));
  open();
});

afterEach(() => {
  store?.close();
  store = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ControlsStore on SQLite', () => {
  it('loads the neutral state from an empty database', () => {
    expect(controls().load()).toEqual(neutralControls());
  });

  it('applies every action kind and returns the stored state', () => {
    const c = controls();
    c.apply({ kind: 'set_threshold', key: 'max_wind_mph', value: 15 }, NOW);
    c.apply({ kind: 'set_threshold', key: 'min_temp_f', value: 20 }, NOW);
    c.apply({ kind: 'toggle', key: 'irrigation_pause', on: true }, NOW);
    c.apply({ kind: 'set_pause_until', epoch: NOW + 86_400 }, NOW);
    c.apply({ kind: 'set_override_tomorrow', mode: 'skip' }, NOW);
    c.apply({ kind: 'set_global_override', mode: 'run' }, NOW);
    c.apply({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'skip' }, NOW);
    const state = c.apply({ kind: 'set_zone_override', zone: 'back_yard', mode: 'run' }, NOW);
    const expected: ControlsState = {
      pause_until_epoch: NOW + 86_400,
      override_tomorrow: 'skip',
      override_tomorrow_date: '2026-06-16',
      global_override: 'run',
      zone_overrides: { front_lawn: 'skip', back_yard: 'run' },
      thresholds: { max_wind_mph: 15, min_temp_f: 20 },
      toggles: { irrigation_pause: true },
    };
    expect(state).toEqual(expected);
    expect(c.load()).toEqual(expected);
  });

  it('persists across close and reopen', () => {
    controls().apply({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'run' }, NOW);
    controls().apply({ kind: 'set_global_override', mode: 'skip' }, NOW);
    controls().apply({ kind: 'set_override_tomorrow', mode: 'run' }, NOW);
    controls().apply({ kind: 'set_pause_until', epoch: NOW + 600 }, NOW);
    controls().apply({ kind: 'set_threshold', key: 'rain_skip_in', value: 0.5 }, NOW);
    const before = controls().load();
    open();
    expect(controls().load()).toEqual(before);
    expect(before.zone_overrides).toEqual({ front_lawn: 'run' });
    expect(before.thresholds).toEqual({ rain_skip_in: 0.5 });
  });

  it('keeps overrides sticky: nothing resets them with time', () => {
    controls().apply({ kind: 'set_global_override', mode: 'skip' }, NOW);
    controls().apply({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'run' }, NOW);
    const weekLater = controls().load();
    expect(weekLater.global_override).toBe('skip');
    const resolution = resolveControls({
      controls: weekLater,
      zone: 'front_lawn',
      dateLocal: '2026-06-22',
      now: NOW + 7 * 86_400,
      timezone: TZ,
    });
    expect(resolution.source).toBe('zone_override');
  });

  it('clears a zone override with auto, falling back to the global one', () => {
    const c = controls();
    c.apply({ kind: 'set_global_override', mode: 'skip' }, NOW);
    c.apply({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'run' }, NOW);
    const state = c.apply({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'auto' }, NOW);
    expect(state.zone_overrides).toEqual({});
    expect(zoneOverrideOf(state, 'front_lawn')).toBe('auto');
    expect(store?.controls.get(CONTROL_KEYS.zoneOverride('front_lawn'))).toBe('auto');
    expect(
      resolveControls({
        controls: state,
        zone: 'front_lawn',
        dateLocal: '2026-06-16',
        now: NOW,
        timezone: TZ,
      }),
    ).toMatchObject({ decision: 'skip', source: 'global_override' });
  });

  it('sets and clears the pause: epoch 0 and clear_pause_until both clear it', () => {
    const c = controls();
    expect(c.apply({ kind: 'set_pause_until', epoch: NOW + 60 }, NOW).pause_until_epoch).toBe(NOW + 60);
    expect(c.apply({ kind: 'set_pause_until', epoch: 0 }, NOW).pause_until_epoch).toBe(0);
    c.apply({ kind: 'set_pause_until', epoch: NOW + 60 }, NOW);
    expect(c.apply({ kind: 'clear_pause_until' }, NOW).pause_until_epoch).toBe(0);
  });

  it('ends a timed pause too when the pause toggle is switched off, atomically', () => {
    const c = controls();
    c.apply({ kind: 'toggle', key: 'irrigation_pause', on: true }, NOW);
    c.apply({ kind: 'set_pause_until', epoch: NOW + 3600 }, NOW);
    const state = c.apply({ kind: 'toggle', key: 'irrigation_pause', on: false }, NOW);
    expect(state.toggles).toEqual({ irrigation_pause: false });
    expect(state.pause_until_epoch).toBe(0);
  });

  it('clear_pause_until leaves the pause toggle on', () => {
    const c = controls();
    c.apply({ kind: 'toggle', key: 'irrigation_pause', on: true }, NOW);
    c.apply({ kind: 'set_pause_until', epoch: NOW + 3600 }, NOW);
    expect(c.apply({ kind: 'clear_pause_until' }, NOW).toggles.irrigation_pause).toBe(true);
  });

  it('fixes the tomorrow override to the local date after now, and none clears the date', () => {
    const c = controls();
    // 23:30 EDT Monday is already Tuesday in UTC: the target is still Tuesday local.
    const lateMonday = NOW + 2.5 * 3600;
    expect(c.apply({ kind: 'set_override_tomorrow', mode: 'run' }, lateMonday).override_tomorrow_date).toBe(
      '2026-06-16',
    );
    expect(store?.controls.get(OVERRIDE_TOMORROW_DATE_KEY)).toBe('2026-06-16');
    const cleared = c.apply({ kind: 'set_override_tomorrow', mode: 'none' }, lateMonday);
    expect(cleared.override_tomorrow).toBe('none');
    expect(cleared.override_tomorrow_date).toBeNull();
    expect(store?.controls.get(OVERRIDE_TOMORROW_DATE_KEY)).toBeNull();
  });

  it('follows the time zone given as a function', () => {
    let tz = TZ;
    const c = new ControlsStore((store as Store).controls, () => tz);
    tz = 'Pacific/Auckland'; // already Tuesday 13:00 there
    expect(c.apply({ kind: 'set_override_tomorrow', mode: 'skip' }, NOW).override_tomorrow_date).toBe(
      '2026-06-17',
    );
  });

  it('refuses an out-of-range threshold without writing anything', () => {
    const c = controls();
    expect(() => c.apply({ kind: 'set_threshold', key: 'min_temp_f', value: 90 }, NOW)).toThrow(
      /min_temp_f must be between 20 and 70 F/,
    );
    expect(() => c.apply({ kind: 'set_pause_until', epoch: -5 }, NOW)).toThrow(RangeError);
    expect(store?.controls.all()).toEqual({});
  });
});

describe('decodeControls', () => {
  it('reads bad rows as neutral values', () => {
    expect(
      decodeControls({
        pause_until_epoch: -3,
        override_tomorrow: 'maybe',
        override_tomorrow_date: '2026-06-16',
        global_override: 7,
        'zone_override:front_lawn': 'sometimes',
        'zone_override:': 'run',
        'threshold:max_wind_mph': 99,
        'threshold:min_temp_f': '40',
        'threshold:unknown': 5,
        'toggle:irrigation_pause': 'on',
        'toggle:other': true,
        unrelated: 1,
      }),
    ).toEqual(neutralControls());
  });

  it('reads a toggle stored as {on} and a tomorrow override without a date', () => {
    const state = decodeControls({ 'toggle:irrigation_pause': { on: true }, override_tomorrow: 'run' });
    expect(state.toggles).toEqual({ irrigation_pause: true });
    expect(state.override_tomorrow).toBe('run');
    expect(state.override_tomorrow_date).toBeNull();
  });
});

describe('effectiveSkipRules', () => {
  it('lays the threshold controls over engine.skip_rules', () => {
    const rules = skipRulesSchema.parse({});
    const state = neutralControls();
    expect(effectiveSkipRules(rules, state)).toEqual(rules);
    state.thresholds = { max_wind_mph: 20, rain_skip_in: 0 };
    const merged = effectiveSkipRules(rules, state);
    expect(merged).toEqual({ ...rules, max_wind_mph: 20, rain_skip_in: 0 });
    expect(merged.min_temp_f).toBe(38);
    expect(rules.max_wind_mph).toBe(10);
  });
});

describe('MemoryControlsBackend', () => {
  it('behaves like the repository for the store', () => {
    const c = new ControlsStore(new MemoryControlsBackend(), TZ);
    c.apply({ kind: 'set_global_override', mode: 'run' }, NOW);
    expect(c.apply({ kind: 'set_override_tomorrow', mode: 'skip' }, NOW)).toMatchObject({
      global_override: 'run',
      override_tomorrow: 'skip',
      override_tomorrow_date: '2026-06-16',
    });
  });

  it('writes all or none and refuses non-finite numbers', () => {
    const backend = new MemoryControlsBackend();
    expect(() => backend.setMany({ a: 1, b: Number.NaN })).toThrow(/non-finite/);
    expect(backend.all()).toEqual({});
    backend.set('x', { on: true });
    const copy = backend.all();
    (copy.x as { on: boolean }).on = false;
    expect(backend.get('x')).toEqual({ on: true });
    expect(backend.delete('x')).toBe(true);
    expect(backend.delete('x')).toBe(false);
  });
});
