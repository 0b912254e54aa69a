import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/**
 * Soil states declared for a zone and a local day: the owner's "soaked on
 * <date>" (depletion 0) or a calibrated probe's reading. Each is the
 * depletion at the start of that day; the newest declaration of a day wins.
 */
export interface SoilStateDeclaration {
  zone: string;
  date_local: string;
  depletion_mm: number;
  source: 'owner' | 'probe';
  epoch: number;
  note: string | null;
  /**
   * A calibrated probe's reconciliation (never stored: probe declarations are
   * derived from readings): the day's start moves toward `depletion_mm` by at
   * most this much. Absent: the declaration replaces the start.
   */
  step_mm?: number;
  /** The probe behind a reconciliation declaration (derived, never stored). */
  sensor_id?: string;
}

export class SoilStatesRepository {
  private readonly insertStmt: Statement<[SoilStateDeclaration]>;
  private readonly rangeStmt: Statement<[{ zone: string; from: string; to: string }], SoilStateDeclaration>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[SoilStateDeclaration]>(
      'INSERT INTO soil_states (zone, date_local, depletion_mm, source, epoch, note) ' +
        'VALUES (@zone, @date_local, @depletion_mm, @source, @epoch, @note)',
    );
    this.rangeStmt = db.prepare<[{ zone: string; from: string; to: string }], SoilStateDeclaration>(
      'SELECT zone, date_local, depletion_mm, source, epoch, note FROM soil_states ' +
        'WHERE zone = @zone AND date_local >= @from AND date_local <= @to ORDER BY date_local, epoch, id',
    );
  }

  insert(declaration: SoilStateDeclaration): void {
    this.insertStmt.run(declaration);
  }

  /** Declarations of `zone` dated `from`..`to` inclusive, oldest first. */
  range(zone: string, from: string, to: string): SoilStateDeclaration[] {
    return this.rangeStmt.all({ zone, from, to });
  }
}
