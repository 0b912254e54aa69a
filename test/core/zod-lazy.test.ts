import { z } from 'zod';
import { lazySchema, once } from '../../server/src/core/zod-lazy';

describe('lazySchema', () => {
  it('builds the schema on first use only, and once', () => {
    const build = jest.fn((zod: typeof z) => zod.object({ n: zod.number().default(1) }));
    const schema = lazySchema(build);
    expect(build).not.toHaveBeenCalled();
    expect(schema.parse({})).toEqual({ n: 1 });
    expect(schema.safeParse({ n: 'x' }).success).toBe(false);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('stands in for the schema: methods, instanceof, embedding, JSON Schema', () => {
    const inner = lazySchema((zod) => zod.strictObject({ a: zod.string() }));
    const outer = lazySchema((zod) => zod.object({ inner, list: zod.array(inner).default([]) }));
    expect(inner).toBeInstanceOf(z.ZodObject);
    const { safeParse } = inner;
    expect(safeParse({ a: 'x' }).success).toBe(true);
    expect(outer.parse({ inner: { a: 'x' } })).toEqual({ inner: { a: 'x' }, list: [] });
    expect(outer.safeParse({ inner: { a: 1 } }).error?.issues[0]?.path).toEqual(['inner', 'a']);
    expect(inner.extend({ b: z.number() }).parse({ a: 'x', b: 2 })).toEqual({ a: 'x', b: 2 });
    expect(z.toJSONSchema(outer, { io: 'input' })).toMatchObject({
      type: 'object',
      properties: { inner: { type: 'object', required: ['a'] } },
    });
  });
});

describe('once', () => {
  it('computes on the first call and keeps the value, even a falsy one', () => {
    const compute = jest.fn(() => 0);
    const value = once(compute);
    expect(compute).not.toHaveBeenCalled();
    expect(value()).toBe(0);
    expect(value()).toBe(0);
    expect(compute).toHaveBeenCalledTimes(1);
  });
});
