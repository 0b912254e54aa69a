import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The baseline for the throughput benchmark: a bare node:http server that
 * answers every request with one fixed body (pre-serialised, as cheap as node
 * can make it). Environment: PORT (required), HOST (default 127.0.0.1),
 * BODY_FILE or BODY (the response body), CONTENT_TYPE (default
 * application/json; charset=utf-8), EXTRA_HEADERS (a JSON object of more
 * headers, e.g. the Content-Encoding of a gzipped body).
 */

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('bare-server: PORT must be set to 1..65535\n');
  process.exit(2);
}
const host = process.env.HOST || '127.0.0.1';
const body = process.env.BODY_FILE
  ? readFileSync(process.env.BODY_FILE)
  : Buffer.from(process.env.BODY ?? '{}', 'utf8');
const headers = {
  'Content-Type': process.env.CONTENT_TYPE || 'application/json; charset=utf-8',
  'Content-Length': String(body.length),
  ...JSON.parse(process.env.EXTRA_HEADERS || '{}'),
};

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(port, host);

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
