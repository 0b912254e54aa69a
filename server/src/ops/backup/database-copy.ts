import type { Database } from '../../store/database';

/**
 * A consistent copy of the live database while the service keeps writing:
 * SQLite's online backup API, a few megabytes per step with the event loop
 * free between steps. Writes through the service's own connection (the only
 * writer) are carried into the copy as it goes, so it never restarts and
 * ends as one consistent state of the database.
 */

/** Pages per step: 1,024 pages of 4 KB, about 4 MB. */
const PAGES_PER_STEP = 1024;

export async function copyDatabase(db: Database, destination: string): Promise<void> {
  await db.backup(destination, { progress: () => PAGES_PER_STEP });
}
