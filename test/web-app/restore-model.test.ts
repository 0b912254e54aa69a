import { describeRestore, type RestoreAnswer } from '../../web/app/pages/settings/restore-model';

/** The restore preview's sentences, from POST /backup/restore?dry_run=1 answers. */

function answer(over: Partial<RestoreAnswer> = {}): RestoreAnswer {
  return {
    dry_run: true,
    kind: 'bundle',
    bundle: {
      created_epoch: 1_764_000_000,
      service_version: '0.1.0',
      build_revision: 'dev',
      install_id: null,
      files: 5,
    },
    config: null,
    database: null,
    snapshots: { in_upload: 0, added: 0 },
    photos: { in_upload: 0, added: 0 },
    restart_required: false,
    ...over,
  };
}

describe('describeRestore', () => {
  it('says what a bundle holds and what will change', () => {
    const lines = describeRestore(
      answer({
        config: {
          changed: true,
          changes: ['$.deployment.display_name'],
          validation: { ok: true, warnings: [] },
          saved: null,
        },
        database: {
          schema_version: 1,
          migrates_to: 2,
          rows: { runs: 62050, accounts: 1, controls: 3 },
          current_rows: { runs: 12, accounts: 1 },
          staged: false,
        },
        snapshots: { in_upload: 20, added: 0 },
        photos: { in_upload: 2, added: 0 },
      }),
    );
    expect(lines[0]).toMatch(/^A backup of Raincheck 0\.1\.0, taken .+, 5 files\.$/);
    expect(lines).toContain(
      'Configuration: 1 field change; it applies at once and the current one is kept as a snapshot.',
    );
    expect(lines).toContain(
      'Database: 62,050 run records (now 12), 1 accounts (now 1). It replaces the current history at the next restart. It has schema version 1 and is upgraded to 2 at the restart.',
    );
    expect(lines).toContain('20 config snapshots (missing ones are added).');
    expect(lines).toContain('2 zone photos (missing ones are added).');
  });

  it('a bare config that matches the current one changes nothing', () => {
    const lines = describeRestore(
      answer({
        kind: 'config',
        bundle: null,
        config: { changed: false, changes: [], validation: { ok: true, warnings: [] }, saved: null },
      }),
    );
    expect(lines).toEqual(['A config file.', 'Configuration: the same as now; nothing changes.']);
  });
});
