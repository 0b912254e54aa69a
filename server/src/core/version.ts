import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Version facts served by /info and /health. */
export const API_VERSION = '2.4.0';
export const API_PREFIX = '/api/v1';
export const LEGACY_API_PREFIX = '/api';
export const SERVICE_NAME = 'raincheck';
export const LICENSE = 'MIT';
export const REPOSITORY = 'https://github.com/raincheck/raincheck';

function findPackageJson(): { version: string } {
  // Works from server/src (ts-jest) and from dist/server/src (built).
  for (const up of ['../../..', '../../../..']) {
    try {
      return JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { version: string };
    } catch {
      // try the next candidate
    }
  }
  return { version: '0.0.0' };
}

export const SERVICE_VERSION: string = findPackageJson().version;

/**
 * The exact source commit when the build supplies one (the Dockerfile passes
 * RAINCHECK_BUILD_REVISION from the build arg), otherwise `dev`.
 */
export function buildRevision(env: NodeJS.ProcessEnv = process.env): string {
  const rev = env.RAINCHECK_BUILD_REVISION?.trim();
  return rev ? rev : 'dev';
}
