import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Prometheus' own linter for the exposition format, from Debian's
 * `prometheus` package (`.ci/run` installs it). Tests do not skip without
 * it: they fail saying how to get it.
 */

function locate(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  if (fs.existsSync('/usr/bin/promtool')) return '/usr/bin/promtool';
  throw new Error(
    'promtool not found (PATH, /usr/bin/promtool): install it with `apt-get install prometheus` (Debian), as .ci/run does',
  );
}

/** Runs `promtool check metrics` on the text; resolves with its complaints ('' when clean). */
export function promtoolCheckMetrics(text: string): { status: number; output: string } {
  const result = spawnSync(locate(), ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}`.trim() };
}

export function promtoolVersion(): string {
  return execFileSync(locate(), ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
}
