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
} from './harness.mjs';

/**
 * One path of the demo service against a bare node:http server sending the
 * very bytes the service sent (body, Content-Type, Content-Encoding), in
 * alternating rounds. The ratio service/bare req/s is the figure.
 */

const CONNECTIONS = 50;
const WARMUP_S = 2;
const DURATION_S = 10;
/** Alternating to spread drift (thermal, page cache, other load) over both sides. */
const ORDER = ['bare', 'service', 'bare', 'service'];

export const THROUGHPUT_SETUP = `${CONNECTIONS} connections, pipelining 1`;

function cannon(url, duration, headers) {
  return autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration, headers });
}

function checkClean(side, result) {
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0) {
    throw new Error(
      `${side}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`,
    );
  }
}

/** What the bare server must repeat so both sides send the same answer. */
function sameAnswerHeaders(headers) {
  const out = {};
  if (headers['content-encoding']) out['Content-Encoding'] = headers['content-encoding'];
  if (headers.vary) out.Vary = headers.vary;
  return out;
}

export async function throughputVsBare(report, { path, requestHeaders = {} }) {
  const dir = makeTempDir();
  const handles = [];
  try {
    const service = await spawnService(dir);
    handles.push(service);
    await waitFor200(service, '/api/v1/health');
    const answer = await httpGet(service.port, path, 5000, requestHeaders);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    const bodyFile = join(dir, 'body.bin');
    writeFileSync(bodyFile, answer.body);

    const bare = await spawnBareServer(
      bodyFile,
      answer.headers['content-type'],
      sameAnswerHeaders(answer.headers),
    );
    handles.push(bare);
    await waitFor200(bare, path);
    const check = await httpGet(bare.port, path, 5000, requestHeaders);
    if (!check.body.equals(answer.body) || check.headers['content-type'] !== answer.headers['content-type']) {
      throw new Error('bare server does not answer the same body and content-type');
    }
    const encoding = answer.headers['content-encoding'] ?? 'identity';
    report('body', `${answer.body.length} bytes, ${answer.headers['content-type']}, ${encoding}`);

    const targets = { bare, service };
    const rps = { bare: [], service: [] };
    for (const [i, side] of ORDER.entries()) {
      const url = `${targets[side].baseUrl}${path}`;
      checkClean(`${side} warm-up`, await cannon(url, WARMUP_S, requestHeaders));
      const result = await cannon(url, DURATION_S, requestHeaders);
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
}
