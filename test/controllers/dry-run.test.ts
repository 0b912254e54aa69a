import { dryRunKind, simulatedConfig } from '../../server/src/controllers/adapters/dry-run';
import { silentLogger } from '../../server/src/core/logger';

function adapter(notify: () => void, nowMs: () => number) {
  return dryRunKind.create({
    id: 'dry',
    config: simulatedConfig(),
    logger: silentLogger(),
    clock: { nowMs },
    fetch,
    stations: [{ zone: 'a', station: 'a' }],
    ha: null,
    notify,
  });
}

describe('dry_run', () => {
  it('a simulated controller runs on what the schema makes of an empty block', () => {
    expect(simulatedConfig()).toStrictEqual(dryRunKind.configSchema.parse({}));
    // A fresh object each time: one adapter's config is never another's.
    expect(simulatedConfig()).not.toBe(simulatedConfig());
  });

  describe('a pretend valve closing on its own timer', () => {
    beforeEach(() => jest.useFakeTimers({ now: Date.UTC(2026, 6, 15, 9) }));
    afterEach(() => jest.useRealTimers());

    it('is told to the manager when it closes, as a device that pushes its state would', async () => {
      let notified = 0;
      const dry = adapter(
        () => (notified += 1),
        () => Date.now(),
      );
      await dry.runZone('a', 30);
      expect((await dry.readStatus()).stations.a).toEqual({ running: true, remaining_s: 30 });
      jest.advanceTimersByTime(29_000);
      expect(notified).toBe(0);
      jest.advanceTimersByTime(1_000);
      expect(notified).toBe(1);
      expect((await dry.readStatus()).stations.a).toEqual({ running: false, remaining_s: null });
    });

    it('a stop or a new run cancels the earlier close report', async () => {
      let notified = 0;
      const dry = adapter(
        () => (notified += 1),
        () => Date.now(),
      );
      await dry.runZone('a', 30);
      await dry.stopZone('a');
      jest.advanceTimersByTime(60_000);
      expect(notified).toBe(0);
      await dry.runZone('a', 30);
      jest.advanceTimersByTime(20_000);
      await dry.runZone('a', 30);
      jest.advanceTimersByTime(20_000);
      expect(notified).toBe(0);
      jest.advanceTimersByTime(10_000);
      expect(notified).toBe(1);
      await dry.stopAll();
      await dry.runZone('a', 5);
      await dry.stop();
      jest.advanceTimersByTime(10_000);
      expect(notified).toBe(1);
    });
  });
});
