import { dateEpoch, dateRange } from './history-series';

/**
 * The zone page's last-30-days chart from the soil water ledger
 * (GET /irrigation/soil), pure: per day the closing depletion (a line when
 * known, the lowest and highest possible when it is a range), rain, the net
 * irrigation that reached the root zone and the crop's water use (ETc), with
 * the trigger (RAW) for reference. A day the ledger has no row for, or a
 * value it does not know, is null: a gap in the chart, never 0.
 */

export interface LedgerRow {
  date_local: string;
  taw_mm: number;
  raw_mm: number;
  et0_mm: number | null;
  etc_mm: number | null;
  ks: number | null;
  rain_mm: number | null;
  rain_source: string;
  irrigation_net_mm: number;
  irrigation_gross_mm: number;
  irrigation_evidence: string;
  drainage_mm: number | null;
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  range_reason: string | null;
  detail?: { anchor?: { source: string; depletion_mm: number } | null } | null;
}

export interface SoilLedger {
  zone: string;
  timezone: string;
  from_date: string;
  to_date: string;
  days: number;
  rows: LedgerRow[];
}

export interface LedgerDays {
  x: number[];
  dates: string[];
  depletionMm: (number | null)[];
  depletionLowMm: (number | null)[];
  depletionHighMm: (number | null)[];
  rainMm: (number | null)[];
  irrigationMm: (number | null)[];
  etcMm: (number | null)[];
  triggerMm: (number | null)[];
  /** Days with a row, days known exactly, days the owner or a probe declared. */
  rowDays: number;
  knownDays: number;
  declaredDays: number;
}

export function buildLedgerDays(ledger: SoilLedger): LedgerDays {
  const dates = dateRange(ledger.to_date, ledger.days);
  const byDate = new Map(ledger.rows.map((r) => [r.date_local, r]));
  const pick = (f: (r: LedgerRow) => number | null) =>
    dates.map((d) => (byDate.has(d) ? f(byDate.get(d) as LedgerRow) : null));
  return {
    x: dates.map(dateEpoch),
    dates,
    depletionMm: pick((r) => r.depletion_mm),
    depletionLowMm: pick((r) => r.depletion_range_mm?.[0] ?? null),
    depletionHighMm: pick((r) => r.depletion_range_mm?.[1] ?? null),
    rainMm: pick((r) => r.rain_mm),
    irrigationMm: pick((r) => r.irrigation_net_mm),
    etcMm: pick((r) => r.etc_mm),
    triggerMm: pick((r) => r.raw_mm),
    rowDays: ledger.rows.length,
    knownDays: ledger.rows.filter((r) => r.depletion_mm !== null).length,
    declaredDays: ledger.rows.filter((r) => r.detail?.anchor).length,
  };
}

/** A plain-language account of the chart (its accessible description). */
export function ledgerSummary(days: LedgerDays, depth: (mm: number) => string): string {
  if (days.rowDays === 0) return 'The soil ledger has no days for this zone yet.';
  const sum = (values: (number | null)[]) => values.reduce<number>((a, v) => a + (v ?? 0), 0);
  const rainKnown = days.rainMm.filter((v) => v !== null).length;
  const ranges = days.rowDays - days.knownDays;
  return [
    `${days.rowDays} days on the soil ledger.`,
    `The crop used ${depth(sum(days.etcMm))}; rain brought ${depth(sum(days.rainMm))} on the ${rainKnown} days it is known` +
      (rainKnown < days.rowDays ? ` (unknown on ${days.rowDays - rainKnown})` : '') +
      `, irrigation ${depth(sum(days.irrigationMm))} into the root zone.`,
    ranges > 0
      ? `On ${ranges} days the depletion is only known as a range (lowest and highest possible).`
      : 'The depletion is known every day.',
    days.declaredDays > 0 ? `A declared soil state set ${days.declaredDays} of these days.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
