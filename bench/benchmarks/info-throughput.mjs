import { THROUGHPUT_SETUP, throughputVsBare } from '../lib/throughput.mjs';

const PATH = '/api/v1/info';

export default {
  name: 'info-throughput',
  title: `GET ${PATH} req/s vs bare node:http (same body), ${THROUGHPUT_SETUP}`,
  budget: { metric: 'service/bare req/s ratio', better: 'higher', limit: 0.5, unit: '' },
  run: (report) => throughputVsBare(report, { path: PATH }),
};
