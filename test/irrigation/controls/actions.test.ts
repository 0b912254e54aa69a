import { parseControlAction, type ParseActionResult } from '../../../server/src/irrigation/controls/actions';

/** 2026-06-09: the pause range counts from here. */
const NOW = 1_781_000_000;
const ctx = { mappedZones: ['front_lawn', 'back_yard'], nowEpoch: NOW };

function parse(body: unknown): ParseActionResult {
  return parseControlAction(body, ctx);
}

function errorOf(body: unknown) {
  const result = parse(body);
  if (result.ok) throw new Error(`expected an error for ${JSON.stringify(body)}`);
  expect(result.error.status).toBe(400);
  return result.error;
}

describe('set_threshold', () => {
  it.each([
    ['max_wind_mph', 0],
    ['max_wind_mph', 50],
    ['max_wind_mph', 12.5],
    ['min_temp_f', 20],
    ['min_temp_f', 70],
    ['rain_skip_in', 0],
    ['rain_skip_in', 10],
    ['rain_skip_in', 0.25],
  ])('accepts %s = %p (range edges inclusive)', (key, value) => {
    expect(parse({ kind: 'set_threshold', key, value })).toEqual({
      ok: true,
      action: { kind: 'set_threshold', key, value },
    });
  });

  it.each([
    ['max_wind_mph', -0.01, 'max_wind_mph must be between 0 and 50 mph; got -0.01'],
    ['max_wind_mph', 50.01, 'max_wind_mph must be between 0 and 50 mph; got 50.01'],
    ['min_temp_f', 19.99, 'min_temp_f must be between 20 and 70 F; got 19.99'],
    ['min_temp_f', 70.5, 'min_temp_f must be between 20 and 70 F; got 70.5'],
    ['rain_skip_in', -1, 'rain_skip_in must be between 0 and 10 in; got -1'],
    ['rain_skip_in', 10.001, 'rain_skip_in must be between 0 and 10 in; got 10.001'],
  ])('refuses %s = %p with the range in the message', (key, value, message) => {
    expect(errorOf({ kind: 'set_threshold', key, value })).toEqual({
      status: 400,
      code: 'threshold_out_of_range',
      message,
    });
  });

  it('refuses an unknown key and a non-number value', () => {
    expect(errorOf({ kind: 'set_threshold', key: 'max_gust_mph', value: 5 })).toMatchObject({
      code: 'threshold_unknown',
      message: expect.stringContaining('max_wind_mph, min_temp_f, rain_skip_in'),
    });
    expect(errorOf({ kind: 'set_threshold', key: 'min_temp_f', value: '40' }).code).toBe('invalid_body');
    expect(errorOf({ kind: 'set_threshold', key: 'min_temp_f' }).code).toBe('invalid_body');
    expect(errorOf({ kind: 'set_threshold', key: 'min_temp_f', value: null }).code).toBe('invalid_body');
  });

  it('does not treat inherited object keys as thresholds', () => {
    expect(errorOf({ kind: 'set_threshold', key: 'toString', value: 5 }).code).toBe('threshold_unknown');
  });
});

describe('toggle', () => {
  it('accepts irrigation_pause on and off', () => {
    expect(parse({ kind: 'toggle', key: 'irrigation_pause', on: true })).toEqual({
      ok: true,
      action: { kind: 'toggle', key: 'irrigation_pause', on: true },
    });
    expect(parse({ kind: 'toggle', key: 'irrigation_pause', on: false }).ok).toBe(true);
  });

  it('refuses an unknown key with toggle_unknown and a non-boolean on', () => {
    expect(errorOf({ kind: 'toggle', key: 'rain_delay', on: true })).toEqual({
      status: 400,
      code: 'toggle_unknown',
      message: 'unknown toggle "rain_delay"; expected one of irrigation_pause, master_enable',
    });
    expect(parse({ kind: 'toggle', key: 'master_enable', on: false }).ok).toBe(true);
    expect(errorOf({ kind: 'toggle', key: 'irrigation_pause', on: 'yes' }).code).toBe('invalid_body');
    expect(errorOf({ kind: 'toggle', key: 'irrigation_pause' }).code).toBe('invalid_body');
  });
});

describe('pause', () => {
  it('accepts an integer epoch >= 0 (0 clears)', () => {
    expect(parse({ kind: 'set_pause_until', epoch: 1_781_500_000 })).toEqual({
      ok: true,
      action: { kind: 'set_pause_until', epoch: 1_781_500_000 },
    });
    expect(parse({ kind: 'set_pause_until', epoch: 0 })).toEqual({
      ok: true,
      action: { kind: 'set_pause_until', epoch: 0 },
    });
  });

  it.each([[1.5], ['1781500000'], [null], [undefined], [Number.POSITIVE_INFINITY]])(
    'refuses epoch %p',
    (epoch) => {
      expect(errorOf({ kind: 'set_pause_until', epoch }).code).toBe('invalid_body');
    },
  );

  it('takes 0 or an epoch up to 366 days ahead; past epochs hold nothing but are accepted', () => {
    const latest = NOW + 366 * 86400;
    expect(parse({ kind: 'set_pause_until', epoch: latest }).ok).toBe(true);
    expect(parse({ kind: 'set_pause_until', epoch: NOW - 86400 }).ok).toBe(true);
    // 1e15 (and anything past the engine's date range) once stopped every recompute (issue 16).
    for (const epoch of [latest + 1, 1e13, 1e15, Number.MAX_SAFE_INTEGER, -1]) {
      const error = errorOf({ kind: 'set_pause_until', epoch });
      expect(error.code).toBe('pause_out_of_range');
      expect(error.message).toContain(`at most ${latest}`);
    }
  });

  it('accepts clear_pause_until with no other field', () => {
    expect(parse({ kind: 'clear_pause_until' })).toEqual({ ok: true, action: { kind: 'clear_pause_until' } });
  });
});

describe('overrides', () => {
  it.each(['none', 'skip', 'run'])('set_override_tomorrow accepts %s', (mode) => {
    expect(parse({ kind: 'set_override_tomorrow', mode })).toEqual({
      ok: true,
      action: { kind: 'set_override_tomorrow', mode },
    });
  });

  it.each(['auto', 'skip', 'run'])('set_global_override accepts %s', (mode) => {
    expect(parse({ kind: 'set_global_override', mode })).toEqual({
      ok: true,
      action: { kind: 'set_global_override', mode },
    });
  });

  it.each(['auto', 'skip', 'run'])('set_zone_override accepts %s on a mapped zone', (mode) => {
    expect(parse({ kind: 'set_zone_override', zone: 'back_yard', mode })).toEqual({
      ok: true,
      action: { kind: 'set_zone_override', zone: 'back_yard', mode },
    });
  });

  it('refuses modes of the other set', () => {
    expect(errorOf({ kind: 'set_override_tomorrow', mode: 'auto' }).code).toBe('invalid_body');
    expect(errorOf({ kind: 'set_global_override', mode: 'none' }).code).toBe('invalid_body');
    expect(errorOf({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'none' }).code).toBe(
      'invalid_body',
    );
    expect(errorOf({ kind: 'set_global_override' }).message).toMatch(/^set_global_override: mode: /);
  });

  it('refuses an unknown zone with mapped_zones and a hint', () => {
    expect(errorOf({ kind: 'set_zone_override', zone: 'side_strip', mode: 'skip' })).toEqual({
      status: 400,
      code: 'zone_unknown',
      message: 'unknown zone "side_strip"',
      mapped_zones: ['back_yard', 'front_lawn'],
      hint: 'zone takes one of the slugs in mapped_zones',
    });
  });

  it('suggests the slug for a display-name spelling of a zone', () => {
    expect(errorOf({ kind: 'set_zone_override', zone: 'Front Lawn', mode: 'run' }).hint).toBe(
      'zone takes a slug: did you mean "front_lawn"?',
    );
  });

  it('says so when no zones are configured', () => {
    const result = parseControlAction(
      { kind: 'set_zone_override', zone: 'front_lawn', mode: 'run' },
      { mappedZones: [], nowEpoch: NOW },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'zone_unknown', mapped_zones: [] } });
    if (!result.ok) expect(result.error.hint).toMatch(/no zones are configured/);
  });
});

describe('kinds', () => {
  it('answers run_sequence_now with action_removed', () => {
    expect(errorOf({ kind: 'run_sequence_now' })).toMatchObject({ status: 400, code: 'action_removed' });
  });

  it('answers an unknown kind with action_unknown', () => {
    expect(errorOf({ kind: 'water_everything' })).toMatchObject({
      code: 'action_unknown',
      message: expect.stringContaining('unknown action kind "water_everything"'),
    });
  });

  it('names the controller kinds as not controls', () => {
    for (const kind of ['run', 'stop', 'stop_all']) {
      expect(errorOf({ kind, zone: 'front_lawn' })).toMatchObject({
        code: 'action_unknown',
        message: `"${kind}" is a controller action, not a control`,
      });
    }
  });

  it.each([[null], [[]], ['set_threshold'], [{}], [{ kind: 3 }]])('refuses body %p', (body) => {
    expect(errorOf(body).code).toBe('invalid_body');
  });

  it('ignores extra fields', () => {
    expect(parse({ kind: 'set_global_override', mode: 'run', source: 'ha' })).toEqual({
      ok: true,
      action: { kind: 'set_global_override', mode: 'run' },
    });
  });
});
