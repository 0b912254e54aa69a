import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeTempDir,
  mb,
  procStatusKb,
  removeTempDir,
  sleep,
  spawnBareServer,
  spawnService,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

const IDLE_MS = 3000;

/** Starts, waits for a 200 on `path`, idles, reads /proc/<pid>/status; always stops the child. */
async function idleStatus(handle, path) {
  try {
    await waitFor200(handle, path);
    await sleep(IDLE_MS);
    return procStatusKb(handle.pid);
  } finally {
    await stopChild(handle);
  }
}

export default {
  name: 'idle-rss',
  title: `Idle RSS ${IDLE_MS / 1000} s after healthy, DEMO=1`,
  budget: { metric: 'VmRSS', better: 'lower', limit: 70, unit: 'MB' },

  async run(report) {
    const dir = makeTempDir();
    const status = await idleStatus(await spawnService(dir), '/api/v1/health');
    removeTempDir(dir);

    const bareDir = makeTempDir();
    const bodyFile = join(bareDir, 'body.json');
    writeFileSync(bodyFile, '{}');
    const bare = await idleStatus(await spawnBareServer(bodyFile), '/');
    removeTempDir(bareDir);

    report('VmRSS', mb(status.VmRSS));
    report('  RssAnon (heap, stacks, native allocations)', mb(status.RssAnon));
    report('  RssFile (mapped node binary, .node addons)', mb(status.RssFile));
    report('VmHWM (peak RSS during start)', mb(status.VmHWM));
    report(
      'reference: bare node:http VmRSS',
      `${mb(bare.VmRSS)} (RssAnon ${mb(bare.RssAnon)}, RssFile ${mb(bare.RssFile)})`,
    );
    const value = status.VmRSS / 1024;
    return { value, display: `${value.toFixed(1)} MB` };
  },
};
