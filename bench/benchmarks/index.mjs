import authThroughput from './auth-throughput.mjs';
import backup from './backup.mjs';
import bundleSize from './bundle-size.mjs';
import coldStart from './cold-start.mjs';
import dashboardCls from './dashboard-cls.mjs';
import engineRecompute from './engine-recompute.mjs';
import forecastArchive from './forecast-archive.mjs';
import healthUnderLoad from './health-under-load.mjs';
import history from './history.mjs';
import idleRss from './idle-rss.mjs';
import infoThroughput from './info-throughput.mjs';
import snapshotThroughput from './snapshot-throughput.mjs';
import season from './season.mjs';
import sseFanout from './sse-fanout.mjs';
import tempestUdpIngest from './tempest-udp-ingest.mjs';

/**
 * Every benchmark `npm run bench` runs, in order. A benchmark is a module whose
 * default export is:
 *
 *   {
 *     name: 'kebab-case-id',            // also the CLI filter: node bench/run.mjs <name>...
 *     title: 'what is measured, under which conditions',
 *     budget: { metric, better: 'lower' | 'higher', limit, unit },
 *     async run(report) { ...; return { value, display } },
 *   }
 *
 * run() prints its figures through report(label, text), cleans up what it
 * started (the harness kills leftovers on exit anyway), and returns the
 * measured `value` in the budget's unit; `display` is the summary text. A
 * throw counts as a failed budget. A module measuring several figures over
 * one fixture (history.mjs, bundle-size.mjs) exports an array of them, spread
 * in below.
 */
export default [
  coldStart,
  ...idleRss,
  infoThroughput,
  ...snapshotThroughput,
  authThroughput,
  tempestUdpIngest,
  sseFanout,
  healthUnderLoad,
  forecastArchive,
  engineRecompute,
  ...season,
  ...history,
  ...bundleSize,
  ...backup,
  dashboardCls,
];
