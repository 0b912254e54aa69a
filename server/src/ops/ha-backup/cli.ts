import { removeDatabaseSnapshot, writeDatabaseSnapshot } from './database-snapshot';

/**
 * `bin/raincheck-ha-backup pre|post`: the add-on's backup_pre and backup_post
 * commands (config.yaml). The Supervisor runs them inside the container; the
 * data directory is /data unless RAINCHECK_DATA_DIR says otherwise.
 */

const DATABASE_FILE = 'raincheck.db';

function main(argv: string[]): number {
  const dataDir = process.env.RAINCHECK_DATA_DIR?.trim() || '/data';
  const step = argv[0];
  if (step === 'pre') {
    const written = writeDatabaseSnapshot(dataDir, DATABASE_FILE);
    process.stdout.write(
      written ? `raincheck: database copy for the backup: ${written}\n` : 'raincheck: no database yet\n',
    );
    return 0;
  }
  if (step === 'post') {
    removeDatabaseSnapshot(dataDir);
    return 0;
  }
  process.stderr.write('usage: raincheck-ha-backup pre|post\n');
  return 2;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`raincheck: the backup step failed: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
