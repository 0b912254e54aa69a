import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeTempDir,
  median,
  ms,
  removeTempDir,
  spawnBareServer,
  spawnService,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

const FRESH_RUNS = 5;
const HEALTH = '/api/v1/health';

/** Spawn to first 200, in ms; always stops the child. */
async function timeToFirst200(handle, path) {
  try {
    const at = await waitFor200(handle, path, { intervalMs: 5 });
    return at - handle.spawnedAt;
  } finally {
    await stopChild(handle);
  }
}

export default {
  name: 'cold-start',
  title: `Cold start (spawn to first ${HEALTH} 200), DEMO=1, fresh data dir`,
  budget: { metric: `median of ${FRESH_RUNS} fresh starts`, better: 'lower', limit: 1.0, unit: 's' },

  async run(report) {
    const fresh = [];
    let lastDir = null;
    for (let i = 0; i < FRESH_RUNS; i++) {
      if (lastDir) removeTempDir(lastDir);
      lastDir = makeTempDir();
      const t = await timeToFirst200(await spawnService(lastDir), HEALTH);
      fresh.push(t);
      report(`fresh #${i + 1}`, ms(t));
    }
    const warm = await timeToFirst200(await spawnService(lastDir), HEALTH);
    removeTempDir(lastDir);

    // Context only: the floor node itself imposes (node:http, no framework, no config).
    const bareDir = makeTempDir();
    const bodyFile = join(bareDir, 'body.json');
    writeFileSync(bodyFile, '{}');
    const bare = [];
    for (let i = 0; i < 3; i++) bare.push(await timeToFirst200(await spawnBareServer(bodyFile), '/'));
    removeTempDir(bareDir);

    const med = median(fresh);
    report('fresh median', ms(med));
    report('fresh max', ms(Math.max(...fresh)));
    report('warm start (existing data dir)', ms(warm));
    report('reference: bare node:http, median of 3', ms(median(bare)));
    return { value: med / 1000, display: `median ${(med / 1000).toFixed(3)} s` };
  },
};
