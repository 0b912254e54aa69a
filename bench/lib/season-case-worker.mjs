import { writeFileSync } from 'node:fs';
import { runCase } from './season-cases.mjs';

/** One season case in its own process: SEASON_CASE names it (JSON), SEASON_CASE_OUT receives the result. */
const spec = JSON.parse(process.env.SEASON_CASE ?? '{}');
runCase(spec).then(
  (result) => {
    writeFileSync(process.env.SEASON_CASE_OUT, JSON.stringify(result));
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
