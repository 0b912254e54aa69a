import { performance } from 'node:perf_hooks';
import benchmarks from './benchmarks/index.mjs';

/**
 * `npm run bench [-- name...]`: builds, then runs each benchmark, printing its
 * budget and figures, then one PASS/FAIL line per benchmark. Exits 1 if any
 * budget fails (or a benchmark throws), 2 on an unknown benchmark name.
 */

function formatBudget({ metric, better, limit, unit }) {
  return `${metric} ${better === 'lower' ? '<' : '>='} ${limit}${unit ? ` ${unit}` : ''}`;
}

function meetsBudget({ better, limit }, value) {
  if (!Number.isFinite(value)) return false;
  return better === 'lower' ? value < limit : value >= limit;
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !benchmarks.some((b) => b.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown benchmark(s) ${unknown.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}\n`,
    );
    process.exit(2);
  }
  const selected = wanted.length > 0 ? benchmarks.filter((b) => wanted.includes(b.name)) : benchmarks;

  console.log(`raincheck benchmarks (node ${process.version}, ${process.platform}/${process.arch})`);
  if (process.env.NODE_OPTIONS) {
    console.log(`note: NODE_OPTIONS="${process.env.NODE_OPTIONS}" is inherited by every server under test`);
  }
  const outcomes = [];
  for (const bench of selected) {
    console.log(`\n== ${bench.name}: ${bench.title}`);
    console.log(`   budget: ${formatBudget(bench.budget)}`);
    const started = performance.now();
    const report = (label, text) => console.log(`   ${label}: ${text}`);
    let outcome;
    try {
      const { value, display } = await bench.run(report);
      outcome = { bench, pass: meetsBudget(bench.budget, value), display };
    } catch (err) {
      console.log(`   error: ${err instanceof Error ? err.message : String(err)}`);
      outcome = { bench, pass: false, display: 'error' };
    }
    console.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    outcomes.push(outcome);
  }

  console.log('');
  const width = Math.max(...outcomes.map((o) => o.bench.name.length));
  for (const { bench, pass, display } of outcomes) {
    console.log(
      `${pass ? 'PASS' : 'FAIL'}  ${bench.name.padEnd(width)}  ${display}  (budget: ${formatBudget(bench.budget)})`,
    );
  }
  if (outcomes.some((o) => !o.pass)) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
