import {
  CSV_HEADER,
  csvField,
  decisionCsvLine,
  isoUtc,
  runCsvLine,
} from '../../../server/src/irrigation/history/csv';
import { runRecord } from './fixtures';

/** CSV rows of the export: RFC 4180 quoting, UTC timestamps, and what event/reason hold. */

describe('csv rows', () => {
  it('has the spec header', () => {
    expect(CSV_HEADER).toBe('timestamp_utc,zone,event,duration_s,reason');
  });

  it('quotes only fields that need it and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField('')).toBe('');
  });

  it('writes timestamps as ISO-8601 UTC to the second', () => {
    expect(isoUtc(1_750_066_200)).toBe('2025-06-16T09:30:00Z');
    expect(isoUtc(0)).toBe('1970-01-01T00:00:00Z');
  });

  it('renders a completed run with its status and note as reason', () => {
    const line = runCsvLine(runRecord({ start_epoch: 1_750_066_200, note: 'controller said "ok", twice' }));
    expect(line).toBe('2025-06-16T09:30:00Z,front_lawn,completed,600,"controller said ""ok"", twice"\r\n');
  });

  it('renders a skip row as event skip with its skip_reason', () => {
    const line = runCsvLine(
      runRecord({
        start_epoch: 1_750_066_200,
        status: 'skipped',
        skip_reason: 'rain_today_forecast',
        duration_s: 0,
      }),
    );
    expect(line).toBe('2025-06-16T09:30:00Z,front_lawn,skip,0,rain_today_forecast\r\n');
  });

  it('renders a failed dispatch (skipped, no skip_reason) with its status and error text', () => {
    const line = runCsvLine(runRecord({ status: 'skipped', note: 'timeout\nafter 5 s', start_epoch: 0 }));
    expect(line).toBe('1970-01-01T00:00:00Z,front_lawn,skipped,600,"timeout\nafter 5 s"\r\n');
  });

  it('renders a verdict change with an empty zone and duration', () => {
    const line = decisionCsvLine({
      epoch: 1_750_066_200,
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'tomorrow_rain' },
    });
    expect(line).toBe('2025-06-16T09:30:00Z,,verdict:skip,,tomorrow_rain\r\n');
    const noCode = decisionCsvLine({
      epoch: 0,
      verdict: 'water',
      previous_verdict: null,
      reason: { reason_code: null },
    });
    expect(noCode).toBe('1970-01-01T00:00:00Z,,verdict:water,,\r\n');
  });
});
