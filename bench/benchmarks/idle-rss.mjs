import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeTempDir,
  mb,
  procStatusKb,
  removeTempDir,
  restartService,
  sleep,
  spawnBareServer,
  spawnService,
  spawnServiceWithConfig,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

const IDLE_MS = 3000;

/**
 * An installed service's config (informational figures): a config file with a
 * local station, a dry-run controller and two zones. The first boot on a
 * file written by hand validates it, so zod loads; it caches what validating
 * gave (config/validated-cache.ts), so a restart on the unchanged file, an
 * installed service's usual boot, does not (see docs/architecture.md).
 */
const INSTALLED_CONFIG = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74.0 }, units: 'imperial' },
  sources: [
    { id: 'yard', kind: 'tempest_udp', priority: 100, enabled: true, config: { bind_addr: '127.0.0.1:0' } },
  ],
  controllers: [{ id: 'valves', kind: 'dry_run', default: true, enabled: true, config: {} }],
  zones: {
    front_lawn: {
      display_name: 'Front lawn',
      species: 'tall_fescue',
      soil_texture: 'loam',
      sprinkler_type: 'spray',
      controller_station: '1',
    },
    back_beds: {
      display_name: 'Back beds',
      species: 'ornamental_shrubs',
      soil_texture: 'loam',
      sprinkler_type: 'drip',
      controller_station: '2',
    },
  },
};

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

    const installedDir = makeTempDir();
    const firstBoot = await idleStatus(
      await spawnServiceWithConfig(installedDir, INSTALLED_CONFIG),
      '/api/v1/health',
    );
    const installed = await idleStatus(await restartService(installedDir), '/api/v1/health');
    removeTempDir(installedDir);

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
      'informational: installed config (station, dry-run controller, two zones), restart VmRSS',
      `${mb(installed.VmRSS)} (RssAnon ${mb(installed.RssAnon)}, RssFile ${mb(installed.RssFile)})`,
    );
    report(
      'informational: same config, first boot on the hand-written file (validates) VmRSS',
      `${mb(firstBoot.VmRSS)} (RssAnon ${mb(firstBoot.RssAnon)}, RssFile ${mb(firstBoot.RssFile)})`,
    );
    report(
      'reference: bare node:http VmRSS',
      `${mb(bare.VmRSS)} (RssAnon ${mb(bare.RssAnon)}, RssFile ${mb(bare.RssFile)})`,
    );
    const value = status.VmRSS / 1024;
    return { value, display: `${value.toFixed(1)} MB` };
  },
};
