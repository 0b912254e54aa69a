import { CONTROL_KEYS } from '../../server/src/store/controls';
import { tempStore } from './temp-db';

const t = tempStore();

describe('ControlsRepository', () => {
  it('sets, gets, deletes and lists JSON values', () => {
    const controls = t.store().controls;
    expect(controls.get(CONTROL_KEYS.pauseUntilEpoch)).toBeUndefined();
    controls.set(CONTROL_KEYS.pauseUntilEpoch, 0);
    controls.set(CONTROL_KEYS.overrideTomorrow, 'skip');
    controls.set(CONTROL_KEYS.zoneOverride('front_lawn'), null);
    controls.set(CONTROL_KEYS.threshold('max_wind_mph'), 12.5);
    controls.set(CONTROL_KEYS.toggle('irrigation_pause'), { on: true });
    expect(controls.get(CONTROL_KEYS.pauseUntilEpoch)).toBe(0);
    expect(controls.get('zone_override:front_lawn')).toBeNull();
    expect(controls.all()).toEqual({
      override_tomorrow: 'skip',
      pause_until_epoch: 0,
      'threshold:max_wind_mph': 12.5,
      'toggle:irrigation_pause': { on: true },
      'zone_override:front_lawn': null,
    });
    expect(controls.delete(CONTROL_KEYS.overrideTomorrow)).toBe(true);
    expect(controls.delete(CONTROL_KEYS.overrideTomorrow)).toBe(false);
    expect(controls.get(CONTROL_KEYS.overrideTomorrow)).toBeUndefined();
  });

  it('overwrites a key', () => {
    const controls = t.store().controls;
    controls.set(CONTROL_KEYS.globalOverride, 'run');
    controls.set(CONTROL_KEYS.globalOverride, 'auto');
    expect(controls.get(CONTROL_KEYS.globalOverride)).toBe('auto');
  });

  it('persists across close and reopen', () => {
    t.store().controls.set(CONTROL_KEYS.pauseUntilEpoch, 1_750_000_000);
    t.store().controls.setMany({ global_override: 'skip', 'zone_override:back': 'run' });
    const reopened = t.reopen();
    expect(reopened.controls.all()).toEqual({
      global_override: 'skip',
      pause_until_epoch: 1_750_000_000,
      'zone_override:back': 'run',
    });
  });

  it('refuses a non-finite number rather than storing a fabricated null', () => {
    const controls = t.store().controls;
    expect(() => controls.set(CONTROL_KEYS.threshold('min_temp_f'), Number.NaN)).toThrow(/non-finite/);
    expect(() => controls.setMany({ a: 1, b: Number.POSITIVE_INFINITY })).toThrow(/non-finite/);
    expect(controls.all()).toEqual({});
  });
});
