import { THROUGHPUT_SETUP, throughputVsBare } from '../lib/throughput.mjs';

/**
 * GET /irrigation/snapshot (about 80 KB of JSON for the demo's six zones),
 * served from bytes serialised once per change: plain, and gzipped for a
 * client that accepts it (the browser, HA's ingress). Each against a bare
 * node:http server sending the same bytes.
 *
 * Plain, the body dominates: the service holds 0.9 of bare (it was 0.47 when
 * it serialised per request). Gzipped, the body is about 7 KB and the
 * per-request work of the framework (routing, the auth gate, hooks)
 * dominates as it does for /info, so it is held to /info's budget, 0.5.
 */

const PATH = '/api/v1/irrigation/snapshot';
const ratio = (limit) => ({ metric: 'service/bare req/s ratio', better: 'higher', limit, unit: '' });

export default [
  {
    name: 'snapshot-throughput',
    title: `GET ${PATH} req/s vs bare node:http (same bytes), ${THROUGHPUT_SETUP}`,
    budget: ratio(0.9),
    run: (report) => throughputVsBare(report, { path: PATH }),
  },
  {
    name: 'snapshot-gzip-throughput',
    title: `GET ${PATH} with Accept-Encoding: gzip, req/s vs bare node:http (same gzipped bytes), ${THROUGHPUT_SETUP}`,
    budget: ratio(0.5),
    run: (report) => throughputVsBare(report, { path: PATH, requestHeaders: { 'Accept-Encoding': 'gzip' } }),
  },
];
