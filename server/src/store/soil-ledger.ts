import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';
import { fromJson, toJson, type JsonValue } from './json';

/**
 * The soil water ledger's rows: one per zone and closed local day (see
 * irrigation/soil/ for how a row is computed). Rows are replaced, never
 * appended: a replay rewrites the days it recomputed in one transaction, so
 * a crash leaves either the old days or the new ones, never a mix.
 */

export type RainSource = 'gauge' | 'radar' | 'model_archive' | 'none';
export type IrrigationEvidenceKind = 'none' | 'observed' | 'commanded' | 'metered' | 'simulated';
/** How the day's gross depth was reckoned: open seconds x rate, a meter's volume over the area, or both. */
export type IrrigationBasisKind = 'none' | 'rate' | 'meter' | 'meter_and_rate';

export interface SoilLedgerRow {
  zone: string;
  date_local: string;
  taw_mm: number;
  raw_mm: number;
  et0_mm: number | null;
  et0_method: string | null;
  kc: number;
  /** FAO-56 eq. 84; null when the state the day's crop drew from is a range. */
  ks: number | null;
  /** ETc adj = Ks x Kc x ET0 x sun factor: what the crop drew; null unless known. */
  etc_mm: number | null;
  rain_mm: number | null;
  rain_source: RainSource;
  /** Rain after the per-day cap; null when the rain is unknown. */
  rain_credited_mm: number | null;
  irrigation_seconds: number;
  irrigation_gross_mm: number;
  irrigation_net_mm: number;
  irrigation_evidence: IrrigationEvidenceKind;
  irrigation_basis: IrrigationBasisKind;
  /** Deep percolation (water beyond field capacity); null unless known. */
  drainage_mm: number | null;
  /** Closing depletion when known, else null and `depletion_range_mm` holds it. */
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  /** Why the closing depletion is a range (`start_unknown`, `rain_unknown`, ...); null when known. */
  range_reason: string | null;
  detail: SoilLedgerDetail;
}

/** The row's supporting facts, kept as JSON. */
export interface SoilLedgerDetail {
  /** The date the range's cause dates from (its first day without the evidence). */
  range_since: string | null;
  start_range_mm: [number, number];
  /** Depletion after the day's water entered, before ETc. */
  after_water_range_mm: [number, number];
  /** Potential ETc (Kc x ET0 x sun factor) before the stress coefficient. */
  etc_potential_mm: number | null;
  sun_factor: number;
  et0_reason: string | null;
  /** Where each weather input of ET0 came from (`station`, `model_archive`, `none`). */
  et0_inputs: Record<string, string>;
  /** Bounds of the day's ET0 when it was bridged or unknown (irrigation/soil/et0-bridge.ts); absent otherwise. */
  et0_band_mm?: [number, number];
  /** A declared state that set this day's start: `owner` or `probe`. */
  anchor: {
    source: 'owner' | 'probe';
    depletion_mm: number;
    /** A calibrated probe's own depletion, when the reconciliation step bounded what it set. */
    probe_depletion_mm?: number;
    /** The probe (its sensor id) a reconciled day was anchored on. */
    sensor_id?: string;
  } | null;
  /** The metered volume behind the day's `meter` depth, US gal (absent on rows before metering counted). */
  irrigation_metered_gal?: number | null;
}

type Row = Omit<SoilLedgerRow, 'depletion_mm' | 'depletion_range_mm' | 'detail'> & {
  depletion_lo_mm: number;
  depletion_hi_mm: number;
  detail: string;
  updated_epoch: number;
};

const COLUMNS = [
  'zone',
  'date_local',
  'taw_mm',
  'raw_mm',
  'et0_mm',
  'et0_method',
  'kc',
  'ks',
  'etc_mm',
  'rain_mm',
  'rain_source',
  'rain_credited_mm',
  'irrigation_seconds',
  'irrigation_gross_mm',
  'irrigation_net_mm',
  'irrigation_evidence',
  'irrigation_basis',
  'drainage_mm',
  'depletion_lo_mm',
  'depletion_hi_mm',
  'range_reason',
  'detail',
  'updated_epoch',
] as const;

interface RangeParams {
  zone: string;
  from: string;
  to: string;
}

export class SoilLedgerRepository {
  private readonly upsertStmt: Statement<[Row]>;
  private readonly rangeStmt: Statement<[RangeParams], Row>;
  private readonly lastStmt: Statement<[{ zone: string; before: string }], Row>;
  private readonly deleteFromStmt: Statement<[{ zone: string; from: string }]>;
  private readonly pruneStmt: Statement<[string]>;
  private readonly firstStmt: Statement<[string], string | null>;
  private readonly replaceDays: Transaction<
    (zone: string, rows: readonly SoilLedgerRow[], epoch: number, dropFrom: string | null) => void
  >;

  constructor(db: Database) {
    this.upsertStmt = db.prepare<[Row]>(
      `INSERT INTO soil_ledger (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')}) ` +
        `ON CONFLICT (zone, date_local) DO UPDATE SET ${COLUMNS.slice(2)
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`,
    );
    this.rangeStmt = db.prepare<[RangeParams], Row>(
      'SELECT * FROM soil_ledger WHERE zone = @zone AND date_local >= @from AND date_local <= @to ORDER BY date_local',
    );
    this.lastStmt = db.prepare<[{ zone: string; before: string }], Row>(
      'SELECT * FROM soil_ledger WHERE zone = @zone AND date_local < @before ORDER BY date_local DESC LIMIT 1',
    );
    this.deleteFromStmt = db.prepare<[{ zone: string; from: string }]>(
      'DELETE FROM soil_ledger WHERE zone = @zone AND date_local >= @from',
    );
    this.pruneStmt = db.prepare<[string]>('DELETE FROM soil_ledger WHERE date_local < ?');
    this.firstStmt = db
      .prepare<[string], string | null>('SELECT MIN(date_local) FROM soil_ledger WHERE zone = ?')
      .pluck();
    this.replaceDays = db.transaction(
      (zone: string, rows: readonly SoilLedgerRow[], epoch: number, dropFrom: string | null) => {
        if (dropFrom !== null) this.deleteFromStmt.run({ zone, from: dropFrom });
        for (const row of rows) this.upsertStmt.run(toRow(row, epoch));
      },
    );
  }

  /**
   * Writes a zone's recomputed days atomically. With `dropFrom`, the zone's
   * rows from that date on are removed first (a full replay that starts later
   * than the old rows did, or a zone whose ledger restarts).
   */
  write(zone: string, rows: readonly SoilLedgerRow[], epoch: number, dropFrom: string | null = null): void {
    if (rows.length > 0 || dropFrom !== null) this.replaceDays(zone, rows, epoch, dropFrom);
  }

  range(zone: string, from: string, to: string): SoilLedgerRow[] {
    return this.rangeStmt.all({ zone, from, to }).map(fromRow);
  }

  /** The zone's newest row before `before` (YYYY-MM-DD), or null. */
  lastBefore(zone: string, before: string): SoilLedgerRow | null {
    const row = this.lastStmt.get({ zone, before });
    return row ? fromRow(row) : null;
  }

  /** The zone's oldest row date, or null when it has none. */
  firstDate(zone: string): string | null {
    return this.firstStmt.get(zone) ?? null;
  }

  pruneBefore(date: string): number {
    return this.pruneStmt.run(date).changes;
  }
}

function toRow(r: SoilLedgerRow, epoch: number): Row {
  const { depletion_mm, depletion_range_mm, detail, ...rest } = r;
  const lo = depletion_mm ?? depletion_range_mm?.[0] ?? 0;
  const hi = depletion_mm ?? depletion_range_mm?.[1] ?? 0;
  return {
    ...rest,
    depletion_lo_mm: lo,
    depletion_hi_mm: hi,
    detail: toJson(detail as unknown as JsonValue),
    updated_epoch: epoch,
  };
}

function fromRow(row: Row): SoilLedgerRow {
  const { depletion_lo_mm, depletion_hi_mm, detail, updated_epoch: _updated, ...rest } = row;
  const exact = depletion_lo_mm === depletion_hi_mm;
  return {
    ...rest,
    depletion_mm: exact ? depletion_lo_mm : null,
    depletion_range_mm: exact ? null : [depletion_lo_mm, depletion_hi_mm],
    detail: fromJson(detail) as unknown as SoilLedgerDetail,
  };
}
