import type * as Schema from './schema';

/**
 * config/schema.ts, loaded on first use: validating a config, migrating a
 * legacy table or serving its form schema needs it; an idle service that
 * adopted its validated cache (or seeded the demo config) never does, and V8
 * keeps every loaded module's source in the heap.
 */
export function configSchemaModule(): typeof Schema {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./schema') as typeof Schema;
}
