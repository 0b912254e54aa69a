import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/**
 * Flow alarms (issue 17): a zone's metered flow left its learnt baseline
 * (`high`: a leak or a broken head; `low`: a clog or low pressure) or showed
 * no flow with the valve open (`none`). Written once per alarm with its
 * evidence; read by the snapshot and by the anomaly detectors
 * (`/irrigation/anomalies`), which take `listSince`.
 */

export type FlowAlarmKind = 'high' | 'low' | 'none';

export interface FlowAlarm {
  epoch: number;
  zone: string;
  controller_id: string | null;
  kind: FlowAlarmKind;
  /** The metered rate that raised it (US gal/min); null when the meter gave none. */
  rate_gpm: number | null;
  /** The zone's learnt baseline at the time; null before one was learnt (no-flow alarms). */
  baseline_gpm: number | null;
  /** True when the alarm closed the valve (a leak above the configured factor). */
  stopped: boolean;
  /** The watering job it happened in. */
  session_id: string | null;
  /** Plain-language evidence. */
  note: string;
}

export interface StoredFlowAlarm extends FlowAlarm {
  id: number;
}

interface AlarmRow extends Omit<FlowAlarm, 'stopped'> {
  id: number;
  stopped: number;
}

const COLUMNS = 'epoch, zone, controller_id, kind, rate_gpm, baseline_gpm, stopped, session_id, note';

export class FlowAlarmsRepository {
  private readonly insertStmt: Statement<[Omit<AlarmRow, 'id'>]>;
  private readonly sinceStmt: Statement<[number], AlarmRow>;
  private readonly pruneStmt: Statement<[number]>;

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO flow_alarms (${COLUMNS}) VALUES (@epoch, @zone, @controller_id, @kind, @rate_gpm, ` +
        '@baseline_gpm, @stopped, @session_id, @note)',
    );
    this.sinceStmt = db.prepare(`SELECT id, ${COLUMNS} FROM flow_alarms WHERE epoch >= ? ORDER BY epoch, id`);
    this.pruneStmt = db.prepare('DELETE FROM flow_alarms WHERE epoch < ?');
  }

  insert(alarm: FlowAlarm): number {
    return Number(this.insertStmt.run({ ...alarm, stopped: alarm.stopped ? 1 : 0 }).lastInsertRowid);
  }

  /** Alarms raised at or after `epoch`, oldest first. */
  listSince(epoch: number): StoredFlowAlarm[] {
    return this.sinceStmt.all(epoch).map((row) => ({ ...row, stopped: row.stopped === 1 }));
  }

  /** Retention: removes alarms before the cutoff, returns how many. */
  deleteBefore(cutoffEpoch: number): number {
    return this.pruneStmt.run(cutoffEpoch).changes;
  }
}
