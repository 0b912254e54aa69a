import { dryRunKind, simulatedConfig } from '../../server/src/controllers/adapters/dry-run';

describe('dry_run', () => {
  it('a simulated controller runs on what the schema makes of an empty block', () => {
    expect(simulatedConfig()).toStrictEqual(dryRunKind.configSchema.parse({}));
    // A fresh object each time: one adapter's config is never another's.
    expect(simulatedConfig()).not.toBe(simulatedConfig());
  });
});
