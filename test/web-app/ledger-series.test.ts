import {
  buildLedgerDays,
  ledgerSummary,
  type LedgerRow,
  type SoilLedger,
} from '../../web/app/pages/zone/ledger-series';

/** The zone page's 30 days from the soil ledger: gaps stay gaps, ranges stay ranges. */

function row(date: string, values: Partial<LedgerRow> = {}): LedgerRow {
  return {
    date_local: date,
    taw_mm: 30,
    raw_mm: 15,
    et0_mm: 5,
    etc_mm: 4,
    ks: 1,
    rain_mm: 0,
    rain_source: 'gauge',
    irrigation_net_mm: 0,
    irrigation_gross_mm: 0,
    irrigation_evidence: 'none',
    drainage_mm: 0,
    depletion_mm: 10,
    depletion_range_mm: null,
    range_reason: null,
    detail: { anchor: null },
    ...values,
  };
}

const ledger: SoilLedger = {
  zone: 'front_lawn',
  timezone: 'America/Denver',
  from_date: '2024-06-26',
  to_date: '2024-06-30',
  days: 4,
  rows: [
    row('2024-06-27', {
      depletion_mm: null,
      depletion_range_mm: [2, 30],
      range_reason: 'start_unknown',
      rain_mm: null,
      rain_source: 'none',
      etc_mm: null,
    }),
    row('2024-06-28', {
      rain_mm: 40,
      depletion_mm: 4,
      detail: { anchor: { source: 'owner', depletion_mm: 0 } },
    }),
    row('2024-06-30', { irrigation_net_mm: 12.5, depletion_mm: 3 }),
  ],
};

describe('buildLedgerDays', () => {
  const days = buildLedgerDays(ledger);

  it('one slot per day ending yesterday; a day without a row is null everywhere', () => {
    expect(days.dates).toEqual(['2024-06-27', '2024-06-28', '2024-06-29', '2024-06-30']);
    expect(days.depletionMm).toEqual([null, 4, null, 3]);
    // The run ledger says what ran: a day on the ledger without water is 0, a day off it is null.
    expect(days.irrigationMm).toEqual([0, 0, null, 12.5]);
    expect(days.triggerMm).toEqual([15, 15, null, 15]);
  });

  it('a range is drawn as its two ends, and unknown rain and ETc are gaps, not zeros', () => {
    expect(days.depletionLowMm).toEqual([2, null, null, null]);
    expect(days.depletionHighMm).toEqual([30, null, null, null]);
    expect(days.rainMm).toEqual([null, 40, null, 0]);
    expect(days.etcMm).toEqual([null, 4, null, 4]);
    expect([days.rowDays, days.knownDays, days.declaredDays]).toEqual([3, 2, 1]);
  });

  it('summarises what it shows in words', () => {
    const text = ledgerSummary(days, (mm) => `${mm.toFixed(1)} mm`);
    expect(text).toContain('3 days on the soil ledger.');
    expect(text).toContain(
      'The crop used 8.0 mm; rain brought 40.0 mm on the 2 days it is known (unknown on 1)',
    );
    expect(text).toContain('irrigation 12.5 mm into the root zone');
    expect(text).toContain('On 1 days the depletion is only known as a range');
    expect(text).toContain('A declared soil state set 1 of these days.');
    expect(ledgerSummary(buildLedgerDays({ ...ledger, rows: [] }), String)).toBe(
      'The soil ledger has no days for this zone yet.',
    );
  });
});
