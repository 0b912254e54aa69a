/**
 * What /health reports: one status string per subsystem, set by the module
 * that owns it, plus the per-source and per-controller rows their domains
 * provide. Only statuses in DEGRADING mark the instance degraded.
 */

export const SUBSYSTEMS = [
  'config',
  'database',
  'weather',
  'forecast',
  'engine',
  'controllers',
  'mqtt',
  'ha',
] as const;
export type SubsystemName = (typeof SUBSYSTEMS)[number];

/** `disabled`: not configured or not part of this build; it is not a fault. */
export type SubsystemStatus =
  'ok' | 'starting' | 'disabled' | 'absent' | 'degraded' | 'unavailable' | 'invalid' | 'unsupported';
const DEGRADING = new Set<SubsystemStatus>(['degraded', 'unavailable', 'invalid', 'unsupported']);

export interface SourceHealth {
  id: string;
  kind: string;
  enabled: boolean;
  last_seen_epoch: number | null;
  stale_for_s: number | null;
  status: 'active' | 'watching' | 'standby' | 'falling_through' | 'offline';
  note: string | null;
}

export interface ControllerHealth {
  id: string;
  kind: string;
  default: boolean;
  enabled: boolean;
  /** Additive: the last command or readback succeeded (null: not asked yet, or disabled). */
  reachable: boolean | null;
  /** Additive: why it is unreachable. */
  note: string | null;
  /**
   * Additive: `device` when every run arms a limit on the device itself,
   * `software` when only Raincheck (its stop and watchdog) closes the valves;
   * null while the controller is not built (disabled).
   */
  failsafe: 'device' | 'software' | null;
}

export interface HaHealth {
  env_configured: boolean;
  reachable: boolean;
  snapshot_source: string | null;
}

export class HealthRegistry {
  private readonly statuses = new Map<SubsystemName, { status: SubsystemStatus; note: string | null }>();
  private readonly dynamic = new Map<SubsystemName, () => { status: SubsystemStatus; note: string | null }>();
  private sourceRows: () => SourceHealth[] = () => [];
  private controllerRows: () => ControllerHealth[] = () => [];
  private haRow: () => HaHealth = () => ({ env_configured: false, reachable: false, snapshot_source: null });

  constructor() {
    for (const name of SUBSYSTEMS) this.statuses.set(name, { status: 'disabled', note: null });
  }

  set(name: SubsystemName, status: SubsystemStatus, note: string | null = null): void {
    this.statuses.set(name, { status, note });
    this.dynamic.delete(name);
  }

  /** A subsystem whose status depends on time as well as events: asked at every health read. */
  provide(name: SubsystemName, read: () => { status: SubsystemStatus; note: string | null }): void {
    this.dynamic.set(name, read);
  }

  provideSources(rows: () => SourceHealth[]): void {
    this.sourceRows = rows;
  }

  provideControllers(rows: () => ControllerHealth[]): void {
    this.controllerRows = rows;
  }

  provideHa(row: () => HaHealth): void {
    this.haRow = row;
  }

  private entry(name: SubsystemName): { status: SubsystemStatus; note: string | null } {
    return this.dynamic.get(name)?.() ?? this.statuses.get(name) ?? { status: 'disabled', note: null };
  }

  subsystems(): Record<SubsystemName, SubsystemStatus> {
    return Object.fromEntries(SUBSYSTEMS.map((name) => [name, this.entry(name).status])) as Record<
      SubsystemName,
      SubsystemStatus
    >;
  }

  /** Human notes for subsystems that have one (why the database is unavailable, ...). */
  notes(): Partial<Record<SubsystemName, string>> {
    const notes: Partial<Record<SubsystemName, string>> = {};
    for (const name of SUBSYSTEMS) {
      const { note } = this.entry(name);
      if (note) notes[name] = note;
    }
    return notes;
  }

  sources(): SourceHealth[] {
    return this.sourceRows();
  }

  controllers(): ControllerHealth[] {
    return this.controllerRows();
  }

  ha(): HaHealth {
    return this.haRow();
  }

  /** `ok`, or `degraded` when a subsystem is faulty or a source is offline (spec 3). */
  overall(): 'ok' | 'degraded' {
    const faulty = SUBSYSTEMS.some((name) => DEGRADING.has(this.entry(name).status));
    const offline = this.sources().some((source) => source.enabled && source.status === 'offline');
    return faulty || offline ? 'degraded' : 'ok';
  }
}
