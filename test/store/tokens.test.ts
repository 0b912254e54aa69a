import { tempStore } from './temp-db';

const t = tempStore();

describe('TokensRepository', () => {
  it('creates and lists tokens without ever returning the hash', () => {
    const tokens = t.store().tokens;
    const created = tokens.create({ name: 'grafana', token_hash: 'sha256:secret', created_epoch: 100 });
    expect(created).toEqual({
      id: expect.any(Number),
      name: 'grafana',
      created_epoch: 100,
      last_used_epoch: null,
    });
    expect(tokens.list()).toEqual([created]);
    expect(JSON.stringify([tokens.list(), tokens.findByHash('sha256:secret')])).not.toContain(
      'sha256:secret',
    );
  });

  it('finds a token by hash and records use without rewinding', () => {
    const tokens = t.store().tokens;
    const { id } = tokens.create({ name: 'ha', token_hash: 'h', created_epoch: 100 });
    expect(tokens.markUsed(id, 500)).toBe(true);
    expect(tokens.markUsed(id, 400)).toBe(true);
    expect(tokens.findByHash('h')).toMatchObject({ id, last_used_epoch: 500 });
    expect(tokens.findByHash('unknown')).toBeNull();
  });

  it('revokes by id and never reuses a revoked id', () => {
    const tokens = t.store().tokens;
    const first = tokens.create({ name: 'a', token_hash: 'ha', created_epoch: 1 });
    expect(tokens.revoke(first.id)).toBe(true);
    expect(tokens.revoke(first.id)).toBe(false);
    expect(tokens.findByHash('ha')).toBeNull();
    const second = tokens.create({ name: 'b', token_hash: 'hb', created_epoch: 2 });
    expect(second.id).toBeGreaterThan(first.id);
    expect(tokens.markUsed(first.id, 10)).toBe(false);
  });

  it('refuses a duplicate hash', () => {
    const tokens = t.store().tokens;
    tokens.create({ name: 'a', token_hash: 'same', created_epoch: 1 });
    expect(() => tokens.create({ name: 'b', token_hash: 'same', created_epoch: 2 })).toThrow(/UNIQUE/);
  });
});
