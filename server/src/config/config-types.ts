import type { JsonObject } from './json-walk';
import type { RaincheckConfig } from './schema';

/** The config the runtime runs on, as one immutable value handed to every subsystem. */
export interface AppliedConfig {
  /** Interpolated, validated, defaults filled: what subsystems read. */
  config: RaincheckConfig;
  /** The document as stored (uninterpolated, secrets intact, no defaults filled). */
  document: JsonObject;
  /** Epoch seconds when this config was applied. */
  appliedAtEpoch: number;
  /** Increases with every applied config; names this config in save answers. */
  revision: number;
  /**
   * Each source's and controller's `config` block as its kind's schema parsed
   * it during validation (defaults filled), by entry id; absent for a config
   * applied without validation (the demo seed). Sources and controllers use
   * these instead of parsing their block again, so a boot from a validated
   * config (config/validated-cache.ts) loads no zod.
   */
  kindConfigs?: KindConfigs;
}

/** Parsed per-kind `config` blocks by entry id; an entry of an unknown kind has none. */
export interface KindConfigs {
  sources: Record<string, unknown>;
  controllers: Record<string, unknown>;
}
