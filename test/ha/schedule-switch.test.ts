import fs from 'node:fs';
import { toToml } from '../../server/src/config/toml';
import { systemClock } from '../../server/src/core/clock';
import { entityCatalog } from '../../server/src/ha/entities/catalog';
import { buildManifest, manifestSchema } from '../../server/src/ha/entities/manifest';
import { ActionExecutor } from '../../server/src/irrigation/action-executor';
import type { Dispatcher } from '../../server/src/irrigation/dispatch/dispatcher';
import { scheduleSwitchOf } from '../../server/src/irrigation/schedule/schedule-switch';
import { catalogViewFixture } from '../helpers/catalog-fixtures';
import { loadedService, tempDir, useBuiltinKinds, validDoc } from '../helpers/config-fixtures';

/**
 * Each fixed schedule gets an enable switch in Home Assistant: an entity of
 * the catalog (so both the MQTT discovery and /sensors/manifest carry it)
 * whose command is the `set_schedule_enabled` action, a config save.
 */

useBuiltinKinds();
const dir = tempDir();

const BEDS = {
  name: 'Beds by hand',
  zones: ['front_lawn'],
  weekdays: [1],
  start: '06:00',
  minutes: 5,
  mode: 'override',
};

describe('the schedule switch entity', () => {
  const view = catalogViewFixture({
    config: { schedules: [BEDS, { ...BEDS, name: 'Winter floor', enabled: false, mode: 'floor' }] },
  });
  const entities = entityCatalog(view);

  it('one switch per schedule, its state the enabled flag, its command the action body', () => {
    const beds = entities.find((e) => e.key === 'schedule_beds_by_hand');
    expect(beds).toMatchObject({
      platform: 'switch',
      name: 'Schedule Beds by hand',
      requires: 'config:schedule',
    });
    expect(beds?.state?.(view)).toBe('ON');
    expect(entities.find((e) => e.key === 'schedule_winter_floor')?.state?.(view)).toBe('OFF');
    expect(beds?.command?.('OFF')).toEqual({
      kind: 'set_schedule_enabled',
      schedule: 'beds_by_hand',
      enabled: false,
    });
    expect(beds?.command?.('maybe')).toBeNull();
  });

  it('appears in the sensors manifest, which still validates', () => {
    const manifest = buildManifest(entities, view, 1_750_000_000);
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(manifest.entities.find((e) => e.key === 'schedule_winter_floor')).toMatchObject({
      platform: 'switch',
      commands: true,
      state: 'OFF',
    });
  });

  it('no schedules, no switches', () => {
    expect(entityCatalog(catalogViewFixture()).filter((e) => e.key.startsWith('schedule_'))).toEqual([]);
  });
});

describe('set_schedule_enabled', () => {
  async function executorOnDisk() {
    const doc = validDoc();
    const zone = Object.keys(doc.zones as object)[0] as string;
    doc.schedules = [{ ...BEDS, zones: [zone] }];
    fs.writeFileSync(`${dir()}/config.toml`, toToml(doc));
    const { service, configPath } = await loadedService(dir());
    const executor = new ActionExecutor({
      irrigation: {
        zoneSlugs: () => [zone],
        applyControl: () => null,
        refresh: () => null,
        timezone: () => 'UTC',
      },
      dispatcher: {} as Dispatcher,
      clock: systemClock,
      schedules: scheduleSwitchOf({
        config: () => service.current?.config,
        update: (build, options) => service.update(build, options),
      }),
    });
    return { service, configPath, executor };
  }

  it('saves the flag to the config file and the running config', async () => {
    const { service, configPath, executor } = await executorOnDisk();
    const outcome = await executor.execute({
      kind: 'set_schedule_enabled',
      schedule: 'beds_by_hand',
      enabled: false,
    });
    expect(outcome).toEqual({
      ok: true,
      body: { ok: true, kind: 'set_schedule_enabled', schedule: 'beds_by_hand', enabled: false },
    });
    expect(service.current?.config.schedules[0]?.enabled).toBe(false);
    expect(fs.readFileSync(configPath, 'utf8')).toMatch(/enabled = false/);
  });

  it('refuses an unknown schedule and a malformed body with their codes', async () => {
    const { executor } = await executorOnDisk();
    expect(
      await executor.execute({ kind: 'set_schedule_enabled', schedule: 'nope', enabled: true }),
    ).toMatchObject({
      ok: false,
      status: 400,
      code: 'schedule_unknown',
      extra: { schedules: ['beds_by_hand'] },
    });
    expect(await executor.execute({ kind: 'set_schedule_enabled', schedule: 'beds_by_hand' })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_body',
    });
  });
});
