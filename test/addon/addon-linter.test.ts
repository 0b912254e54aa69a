import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { lintAddonConfig } from './addon-linter';

/**
 * config.yaml passes the community add-on linter (frenck/action-addon-linter):
 * its schema with the default-value rule, and its checks. The linter itself
 * is held to fail what it fails upstream.
 */

const ROOT = path.join(__dirname, '..', '..');
const config = parse(fs.readFileSync(path.join(ROOT, 'config.yaml'), 'utf8')) as Record<string, unknown>;

describe('the community add-on linter', () => {
  it('passes config.yaml with no error and no warning', () => {
    expect(lintAddonConfig(config)).toEqual({ errors: [], warnings: [] });
  });

  it('fails the obsolete watchdog and keys set to their defaults (what it found before)', () => {
    const before = {
      ...config,
      startup: 'application',
      apparmor: true,
      watchdog: 'http://[HOST]:[PORT:8099]/api/v1/health',
    };
    expect(lintAddonConfig(before).errors).toEqual([
      "'apparmor' should be removed, it uses a default value",
      "'startup' should be removed, it uses a default value",
      "'watchdog', is obsolete. Use the native Docker HEALTHCHECK directive instead.",
    ]);
  });

  it('fails a random ingress port off the host network, an unknown key and a bad service', () => {
    const { host_network: _hostNetwork, ...bridged } = config;
    expect(lintAddonConfig(bridged).errors).toEqual([
      "'ingress_port' this does not run on the host network.",
    ]);
    expect(lintAddonConfig({ ...config, webui_port: 1 }).errors).toEqual([
      "Additional properties are not allowed ('webui_port' was unexpected)",
    ]);
    expect(lintAddonConfig({ ...config, services: ['mqtt:maybe'] }).errors).toEqual([
      'services/0: must match pattern "^(?<service>mqtt|mysql):(?<rights>provide|want|need)$"',
    ]);
  });
});
