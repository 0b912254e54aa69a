import autocannon from 'autocannon';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  httpGet,
  makeTempDir,
  mean,
  ms,
  removeTempDir,
  spawnBareServer,
  spawnService,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

const PATH = '/api/v1/info';
const CONNECTIONS = 50;
const WARMUP_S = 2;
const DURATION_S = 10;
/** Alternating to spread drift (thermal, page cache, other load) over both sides. */
const ORDER = ['bare', 'service', 'bare', 'service'];

function cannon(url, duration) {
  return autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration });
}

function checkClean(side, result) {
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0) {
    throw new Error(
      `${side}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`,
    );
  }
}

export default {
  name: 'info-throughput',
  title: `GET ${PATH} req/s vs bare node:http (same body), ${CONNECTIONS} connections, pipelining 1`,
  budget: { metric: 'service/bare req/s ratio', better: 'higher', limit: 0.5, unit: '' },

  async run(report) {
    const dir = makeTempDir();
    const handles = [];
    try {
      const service = await spawnService(dir);
      handles.push(service);
      await waitFor200(service, '/api/v1/health');
      const info = await httpGet(service.port, PATH);
      if (info.status !== 200) throw new Error(`${PATH} answered ${info.status}`);
      const bodyFile = join(dir, 'info.json');
      writeFileSync(bodyFile, info.body);

      const bare = await spawnBareServer(bodyFile, info.headers['content-type']);
      handles.push(bare);
      await waitFor200(bare, PATH);
      const check = await httpGet(bare.port, PATH);
      if (!check.body.equals(info.body) || check.headers['content-type'] !== info.headers['content-type']) {
        throw new Error('bare server does not answer the same body and content-type');
      }
      report('body', `${info.body.length} bytes, ${info.headers['content-type']}`);

      const targets = { bare, service };
      const rps = { bare: [], service: [] };
      for (const [i, side] of ORDER.entries()) {
        const url = `${targets[side].baseUrl}${PATH}`;
        checkClean(`${side} warm-up`, await cannon(url, WARMUP_S));
        const result = await cannon(url, DURATION_S);
        checkClean(side, result);
        rps[side].push(result.requests.average);
        report(
          `round ${i + 1} ${side.padEnd(7)}`,
          `${result.requests.average.toFixed(0)} req/s, latency mean ${result.latency.average.toFixed(2)} ms, ` +
            `p99 ${ms(result.latency.p99)} (${result.requests.total} requests in ${result.duration} s)`,
        );
      }
      const bareMean = mean(rps.bare);
      const serviceMean = mean(rps.service);
      const ratio = serviceMean / bareMean;
      report('bare mean', `${bareMean.toFixed(0)} req/s`);
      report('service mean', `${serviceMean.toFixed(0)} req/s`);
      report('ratio service/bare', ratio.toFixed(3));
      return { value: ratio, display: `ratio ${ratio.toFixed(3)}` };
    } finally {
      for (const handle of handles) await stopChild(handle);
      removeTempDir(dir);
    }
  },
};
