import { THROUGHPUT_SETUP, throughputVsBare } from '../lib/throughput.mjs';

/**
 * GET /irrigation/snapshot (about 80 KB of JSON for the demo's six zones),
 * served from bytes serialised once per change: plain, and gzipped for a
 * client that accepts it (the browser, HA's ingress). Each against a bare
 * node:http server sending the same bytes.
 */

const PATH = '/api/v1/irrigation/snapshot';
const budget = { metric: 'service/bare req/s ratio', better: 'higher', limit: 0.9, unit: '' };

export default [
  {
    name: 'snapshot-throughput',
    title: `GET ${PATH} req/s vs bare node:http (same bytes), ${THROUGHPUT_SETUP}`,
    budget,
    run: (report) => throughputVsBare(report, { path: PATH }),
  },
  {
    name: 'snapshot-gzip-throughput',
    title: `GET ${PATH} with Accept-Encoding: gzip, req/s vs bare node:http (same gzipped bytes), ${THROUGHPUT_SETUP}`,
    budget,
    run: (report) => throughputVsBare(report, { path: PATH, requestHeaders: { 'Accept-Encoding': 'gzip' } }),
  },
];
