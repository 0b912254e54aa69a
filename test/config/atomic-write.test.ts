import fs from 'node:fs';
import path from 'node:path';
import { parseToml, toToml } from '../../server/src/config/toml';
import type { JsonObject } from '../../server/src/config/json-walk';
import type { AppliedConfig } from '../../server/src/config/config-types';
import {
  removeStaleTempFiles,
  writeFileAtomic,
  type AtomicWriteStep,
} from '../../server/src/core/atomic-write';
import {
  loadedService,
  readText,
  tempDir,
  tempFilesBeside,
  useBuiltinKinds,
  validDoc,
} from '../helpers/config-fixtures';

useBuiltinKinds();
const dir = tempDir('raincheck-atomic-');

const STEPS: AtomicWriteStep[] = ['open', 'write', 'fsync', 'close', 'rename', 'fsync_dir'];

class SimulatedCrash extends Error {
  constructor(readonly step: AtomicWriteStep) {
    super(`simulated crash before ${step}`);
  }
}

function crashAt(step: AtomicWriteStep): (current: AtomicWriteStep) => void {
  return (current) => {
    if (current === step) throw new SimulatedCrash(step);
  };
}

/** A large document, so a torn write could not pass for either version. */
function bigDoc(minutes: number): JsonObject {
  const doc = validDoc();
  const zones: JsonObject = {};
  for (let i = 0; i < 200; i += 1) {
    zones[`zone_${i}`] = {
      display_name: `Zone ${i} ${'x'.repeat(50)}`,
      controller_station: String(i + 1),
      max_run_minutes: minutes,
    };
  }
  doc.zones = zones;
  return doc;
}

describe('writeFileAtomic', () => {
  it('writes the steps in order and leaves no temp file', () => {
    const file = path.join(dir(), 'config.toml');
    const seen: AtomicWriteStep[] = [];
    writeFileAtomic(file, 'a = 1\n', (step) => seen.push(step));
    expect(seen).toEqual(STEPS);
    expect(readText(file)).toBe('a = 1\n');
    expect(tempFilesBeside(file)).toEqual([]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each(STEPS)('a crash before %s leaves the whole old or the whole new content', (step) => {
    const file = path.join(dir(), 'config.toml');
    const oldText = toToml(bigDoc(20));
    const newText = toToml(bigDoc(40));
    writeFileAtomic(file, oldText);

    expect(() => writeFileAtomic(file, newText, crashAt(step))).toThrow(SimulatedCrash);

    const after = readText(file);
    expect([oldText, newText]).toContain(after);
    // Up to the rename the old file is in place; from the rename on, the new one.
    expect(after).toBe(step === 'fsync_dir' ? newText : oldText);
    expect(parseToml(after)).toEqual(parseToml(step === 'fsync_dir' ? newText : oldText));

    // A crash after the temp file was opened and before the rename leaves it behind.
    const leftBehind = ['write', 'fsync', 'close', 'rename'].includes(step);
    expect(tempFilesBeside(file)).toHaveLength(leftBehind ? 1 : 0);
    expect(removeStaleTempFiles(file)).toBe(leftBehind ? 1 : 0);
    expect(tempFilesBeside(file)).toEqual([]);
    expect(readText(file)).toBe(after);

    // The next write succeeds normally.
    writeFileAtomic(file, newText);
    expect(readText(file)).toBe(newText);
  });

  it.each(STEPS)('a crash before %s on a first write leaves no file or the whole new one', (step) => {
    const file = path.join(dir(), 'fresh.toml');
    expect(() => writeFileAtomic(file, 'b = 2\n', crashAt(step))).toThrow(SimulatedCrash);
    if (step === 'fsync_dir') expect(readText(file)).toBe('b = 2\n');
    else expect(fs.existsSync(file)).toBe(false);
    removeStaleTempFiles(file);
    expect(tempFilesBeside(file)).toEqual([]);
  });

  it('removeStaleTempFiles only removes temp files of that target', () => {
    const file = path.join(dir(), 'config.toml');
    const names = ['config.toml.tmp-1-2', 'config.toml.tmp-99-100', 'other.toml.tmp-1-2', 'config.toml.bak'];
    for (const name of names) fs.writeFileSync(path.join(dir(), name), 'x');
    fs.writeFileSync(file, 'keep = true\n');
    expect(removeStaleTempFiles(file)).toBe(2);
    expect(fs.readdirSync(dir()).sort()).toEqual(['config.toml', 'config.toml.bak', 'other.toml.tmp-1-2']);
  });

  it('removeStaleTempFiles on a missing folder removes nothing', () => {
    expect(removeStaleTempFiles(path.join(dir(), 'missing', 'config.toml'))).toBe(0);
  });
});

describe('ConfigService with a crash injected into the config write', () => {
  it.each(STEPS)(
    'a crash before %s: file is old or new in full, memory matches, next boot cleans up',
    async (step) => {
      let armed = false;
      const hook = (current: AtomicWriteStep): void => {
        if (armed && current === step) throw new SimulatedCrash(step);
      };
      const { service, configPath, bus } = await loadedService(dir(), {}, { beforeWriteStep: hook });
      const oldDoc = bigDoc(20);
      const newDoc = bigDoc(40);
      await service.save(oldDoc, { note: 'old' });
      const oldText = readText(configPath);
      const appliedBefore = service.current;
      const events: AppliedConfig[] = [];
      bus.on('config.changed', (e) => events.push(e.next));

      armed = true;
      await expect(service.save(newDoc, { note: 'new' })).rejects.toBeInstanceOf(SimulatedCrash);
      armed = false;

      const onDisk = parseToml(readText(configPath));
      const reachedRename = step === 'fsync_dir';
      expect(onDisk).toEqual(reachedRename ? newDoc : oldDoc);
      if (!reachedRename) {
        expect(readText(configPath)).toBe(oldText);
        // The write failed before the rename: the service still runs the old config and announced nothing.
        expect(service.current).toBe(appliedBefore);
        expect(service.current?.config.zones.zone_0?.max_run_minutes).toBe(20);
        expect(events).toEqual([]);
      }

      const leftBehind = ['write', 'fsync', 'close', 'rename'].includes(step);
      expect(tempFilesBeside(configPath)).toHaveLength(leftBehind ? 1 : 0);

      // The next boot removes the stale temp file and loads whichever version is on disk, whole.
      const rebooted = await loadedService(dir());
      expect(tempFilesBeside(configPath)).toEqual([]);
      expect(rebooted.service.health.status).toBe('ok');
      expect(rebooted.service.current?.document).toEqual(reachedRename ? newDoc : oldDoc);

      // The lock was released: the first service can still save.
      const retry = await service.save(newDoc, { note: 'retry' });
      expect(retry.saved.revision).toBe((appliedBefore?.revision ?? 0) + 1);
      expect(parseToml(readText(configPath))).toEqual(newDoc);
      expect(service.current?.config.zones.zone_0?.max_run_minutes).toBe(40);
    },
  );

  it('a crash on the very first save leaves no config: the next boot is a clean first run', async () => {
    const { service, configPath } = await loadedService(dir(), {}, { beforeWriteStep: crashAt('rename') });
    await expect(service.save(validDoc(), { note: 'first' })).rejects.toBeInstanceOf(SimulatedCrash);
    expect(fs.existsSync(configPath)).toBe(false);
    expect(service.current).toBeNull();
    expect(service.health.status).toBe('absent');
    expect(tempFilesBeside(configPath)).toHaveLength(1);
    const rebooted = await loadedService(dir());
    expect(rebooted.service.health.status).toBe('absent');
    expect(tempFilesBeside(configPath)).toEqual([]);
  });
});
