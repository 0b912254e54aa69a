// Writes a gzip copy beside each built JS and CSS file (dist/web/pkg/*.gz) so
// the service sends the compressed bytes without compressing per request.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gzipSync } from 'node:zlib';

const pkg = fileURLToPath(new URL('../dist/web/pkg', import.meta.url));
for (const name of readdirSync(pkg)) {
  if (!/\.(js|css|svg|map)$/.test(name)) continue;
  const file = join(pkg, name);
  writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: constants.Z_BEST_COMPRESSION }));
}
