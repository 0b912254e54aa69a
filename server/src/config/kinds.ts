import type { z } from 'zod';

/**
 * Per-kind knowledge the config validator needs: the schema of a kind's
 * `config` block and, for controllers, how a zone binds to a station. Each
 * kind owns its block; the adapters that later issues add register here and
 * set `adapterBuilt`, so validation and dispatch cannot disagree.
 */

export interface SourceKind {
  kind: string;
  label: string;
  configSchema: z.ZodType;
  /** Warnings for values the kind accepts but adjusts (e.g. clamped ranges). */
  adjustments?: (config: Record<string, unknown>) => { path: string[]; message: string; code: string }[];
}

export interface ControllerKind {
  kind: string;
  label: string;
  configSchema: z.ZodType;
  /** False until the controllers domain provides an adapter for this kind. */
  adapterBuilt: boolean;
  /** The kind accepts any zone without a station (dry run). */
  acceptsAnyZone?: boolean;
  /** Human description of a valid station, for warnings. */
  stationExpectation?: string;
  /** True when the station string is usable by this kind. Absent: any non-empty string is. */
  parseStation?: (station: string) => boolean;
  /** True when the kind's own zone map binds this zone slug. */
  zoneMapCovers?: (config: Record<string, unknown>, slug: string) => boolean;
}

const sourceKinds = new Map<string, SourceKind>();
const controllerKinds = new Map<string, ControllerKind>();

/** A later registration of the same kind (its adapter's own schema) keeps earlier config warnings. */
export function registerSourceKind(kind: SourceKind): void {
  const adjustments = kind.adjustments ?? sourceKinds.get(kind.kind)?.adjustments;
  sourceKinds.set(kind.kind, adjustments ? { ...kind, adjustments } : kind);
}

export function registerControllerKind(kind: ControllerKind): void {
  controllerKinds.set(kind.kind, kind);
}

export function sourceKind(kind: string): SourceKind | undefined {
  return sourceKinds.get(kind);
}

export function controllerKind(kind: string): ControllerKind | undefined {
  return controllerKinds.get(kind);
}

/** Marks a controller kind as drivable; called by the controllers domain when it registers an adapter. */
export function markControllerAdapterBuilt(kind: string): void {
  const entry = controllerKinds.get(kind);
  if (entry) entry.adapterBuilt = true;
}

export function knownSourceKinds(): string[] {
  return [...sourceKinds.keys()].sort();
}

export function knownControllerKinds(): string[] {
  return [...controllerKinds.keys()].sort();
}

/** A station map under `zone_map` (slug -> station) is the common way a controller binds zones. */
export function zoneMapHas(config: Record<string, unknown>, key: string, slug: string): boolean {
  const map = config[key];
  return typeof map === 'object' && map !== null && slug in map;
}
