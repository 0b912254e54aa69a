import type * as Zod from 'zod';

/**
 * zod, loaded on first use. Requiring zod and building the schemas costs an
 * idle service about 4.5 MB resident (measured on the demo), and nothing needs
 * them before the first request that validates something: a module keeps its
 * schemas in `lazySchema` and imports zod's types only (`import type`), so the
 * one runtime `require('zod')` of the service is here.
 */

export type ZodNamespace = typeof Zod.z;

let loaded: ZodNamespace | null = null;

/** The zod namespace (`z`), required the first time it is asked for. */
export function zod(): ZodNamespace {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= (require('zod') as typeof Zod).z);
}

/**
 * A schema built on first use: `build` runs (and zod loads) the first time any
 * property of the returned value is read, e.g. `.safeParse`; the result is
 * kept. The value stands in for the schema everywhere, typed as it, so
 * callers do not change.
 *
 * It is a Proxy, so it is not the schema object itself: methods are bound to
 * the built schema, and a schema that zod keeps metadata for (`.describe()`,
 * `.meta()`) should be built inside the same `build` as the schemas that
 * embed it (zod finds that metadata by object identity).
 */
export function lazySchema<T extends object>(build: (z: ZodNamespace) => T): T {
  let schema: T | null = null;
  const real = (): T => (schema ??= build(zod()));
  return new Proxy(Object.create(null) as T, {
    get(_target, key) {
      const target = real();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' && key !== 'constructor' ? value.bind(target) : value;
    },
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor(_target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // The (empty) proxy target cannot report a property it lacks as non-configurable.
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/** A value computed on first call and kept (e.g. several schemas built together). */
export function once<T>(compute: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: compute() }).v;
}
