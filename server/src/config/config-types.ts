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
}
