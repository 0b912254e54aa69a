import { computeGuarded } from '../../server/src/irrigation/guarded-compute';
import { neutralControls, PAUSE_MAX_AHEAD_S } from '../../server/src/irrigation/controls/types';
import type { EngineInput, EngineOutput } from '../../server/src/irrigation/engine/types';
import { json, send } from '../auth/auth-helpers';
import { quietDemoClock, serviceTracker, type BootedService } from '../helpers/service';

/**
 * Issue 16, item 1: `set_pause_until` with an epoch around 1e15 was accepted
 * and persisted, and from then on every recompute threw: the live snapshot
 * stopped, simulate answered 500 and, after a restart, the snapshot answered
 * 409 until the pause was cleared. Action values are range-checked (400 with
 * a code), and a stored control that makes the engine throw is degraded and
 * reported in health while the engine keeps computing.
 */

const services = serviceTracker();
const BAD_PAUSE = 1e15;

function boot(dataDir?: string): Promise<BootedService> {
  return services.boot({
    env: { DEMO: '1' },
    serviceOptions: { clock: quietDemoClock() },
    ...(dataDir ? { dataDir } : {}),
  });
}

function action(booted: BootedService, body: unknown) {
  return send(booted.port, { method: 'POST', path: '/api/v1/irrigation/action', body });
}

async function engineHealth(booted: BootedService): Promise<{ status: string; note: string | undefined }> {
  const health = json(await send(booted.port, { path: '/api/v1/health' })) as {
    subsystems: Record<string, string>;
    notes: Record<string, string>;
  };
  return { status: health.subsystems.engine ?? '', note: health.notes.engine };
}

describe('action values are range-checked', () => {
  it('refuses a pause past the accepted range with 400 pause_out_of_range and stores nothing', async () => {
    const booted = await boot();
    for (const epoch of [BAD_PAUSE, 1e13, 9_007_199_254_740_991, -5]) {
      const res = await action(booted, { kind: 'set_pause_until', epoch });
      expect([epoch, res.status, json(res)?.code]).toEqual([epoch, 400, 'pause_out_of_range']);
    }
    expect(booted.service.store?.controls.get('pause_until_epoch')).toBeUndefined();
    const snapshot = json(await send(booted.port, { path: '/api/v1/irrigation/snapshot' }));
    expect(snapshot?.pause_until_epoch).toBe(0);
  });
});

describe('a stored control the engine cannot use', () => {
  it('is degraded and reported; snapshot, simulate and a restart keep working', async () => {
    const first = await boot();
    // What an earlier build stored when it accepted the value.
    first.service.store?.controls.set('pause_until_epoch', BAD_PAUSE);
    const nudge = await action(first, { kind: 'set_global_override', mode: 'auto' });
    expect(nudge.status).toBe(200);

    const snapshot = json(await send(first.port, { path: '/api/v1/irrigation/snapshot' })) as {
      pause_until_epoch: number;
      last_refresh_epoch: number;
      skip_check: { is_paused: boolean };
    };
    // The pause keeps its intent (held as long as a pause may be), it never silently resumes watering.
    expect(snapshot.skip_check.is_paused).toBe(true);
    expect(snapshot.pause_until_epoch - snapshot.last_refresh_epoch).toBeGreaterThan(PAUSE_MAX_AHEAD_S - 120);
    const health = await engineHealth(first);
    expect(health.status).toBe('degraded');
    expect(health.note).toContain('controls.pause_until_epoch');

    const simulated = await send(first.port, {
      method: 'POST',
      path: '/api/v1/irrigation/simulate',
      body: {},
    });
    expect(simulated.status).toBe(200);
    expect((json(simulated)?.degraded_controls as { control: string }[])[0]?.control).toBe(
      'controls.pause_until_epoch',
    );
    await first.service.stop();

    // After a restart the stored value is still there, and the engine still answers.
    const second = await boot(first.dataDir);
    expect((await send(second.port, { path: '/api/v1/irrigation/snapshot' })).status).toBe(200);
    expect((await engineHealth(second)).status).toBe('degraded');
    expect((await action(second, { kind: 'clear_pause_until' })).status).toBe(200);
    expect(await engineHealth(second)).toEqual({ status: 'ok', note: undefined });
    const cleared = json(await send(second.port, { path: '/api/v1/irrigation/snapshot' }));
    expect(cleared?.pause_until_epoch).toBe(0);
  });

  it('a simulated time outside a year of now is a 400: far ones stopped the engine or held it for seconds', async () => {
    const booted = await boot();
    const now = Math.floor(quietDemoClock().nowMs() / 1000);
    for (const now_epoch of [1e13, 4_026_584_925, now + 367 * 86400, now - 367 * 86400]) {
      const far = await send(booted.port, {
        method: 'POST',
        path: '/api/v1/irrigation/simulate',
        body: { now_epoch },
      });
      expect([now_epoch, far.status, json(far)?.code]).toEqual([now_epoch, 400, 'invalid_body']);
    }
    const near = await send(booted.port, {
      method: 'POST',
      path: '/api/v1/irrigation/simulate',
      body: { now_epoch: now + 30 * 86400 },
    });
    expect(near.status).toBe(200);
  });
});

describe('computeGuarded', () => {
  const output = (verdict: string) => ({ verdict }) as unknown as EngineOutput;
  const input = (controls = neutralControls()): EngineInput =>
    ({ nowEpoch: 1_800_000_000, controls }) as unknown as EngineInput;

  it('passes a computable input through untouched', () => {
    const result = computeGuarded(() => output('water'), input());
    expect(result).toEqual({
      output: output('water'),
      controls: neutralControls(),
      degraded: [],
      error: null,
    });
  });

  it('degrades only the control that breaks the engine', () => {
    const controls = {
      ...neutralControls(),
      global_override: 'skip' as const,
      thresholds: { max_wind_mph: 50 },
    };
    const engine = (i: EngineInput) => {
      if (i.controls.thresholds.max_wind_mph === 50) throw new RangeError('wind rule broke');
      return output(i.controls.global_override);
    };
    const result = computeGuarded(engine, input(controls));
    expect(result.output).toEqual(output('skip'));
    expect(result.degraded).toEqual([
      { control: 'controls.thresholds', error: 'wind rule broke', used: 'its neutral default' },
    ]);
    expect(result.controls.global_override).toBe('skip');
  });

  it('degrades several when no single one is enough, and says when nothing computes', () => {
    const controls = {
      ...neutralControls(),
      global_override: 'run' as const,
      toggles: { master_enable: false },
    };
    const twoBad = (i: EngineInput) => {
      if (i.controls.global_override === 'run' || i.controls.toggles.master_enable === false)
        throw new Error('x');
      return output('skip');
    };
    expect(computeGuarded(twoBad, input(controls)).degraded.map((d) => d.control)).toEqual([
      'controls.global_override',
      'controls.toggles',
    ]);
    const broken = computeGuarded(() => {
      throw new Error('weather broke');
    }, input(controls));
    expect(broken).toMatchObject({ output: null, degraded: [], error: 'weather broke' });
  });
});
