import {
  creditedEnd,
  FULL_RUN_SLACK_S,
  freshEvidence,
  noteFailure,
  noteReading,
} from '../../../server/src/irrigation/dispatch/readback-evidence';

/** The evidence rules the request row and the hardware row share (pure). */

describe('readback evidence', () => {
  it('credits to the first closed reading, capped at the planned end', () => {
    const e = freshEvidence();
    noteReading(e, true, 100, null, 100);
    noteReading(e, true, 110, null, 100);
    expect(creditedEnd(e, 100, 118, 130)).toEqual({ end: 118, cutBy: 'controller' });
    expect(creditedEnd(e, 100, 135, 130)).toEqual({ end: 130, cutBy: null });
  });

  it("a valve read closed within the controller's whole-second timing of its end ran its full time", () => {
    const e = freshEvidence();
    noteReading(e, true, 100, null, 100);
    noteReading(e, true, 126, null, 100);
    expect(creditedEnd(e, 100, 130 - FULL_RUN_SLACK_S, 130)).toEqual({ end: 128, cutBy: null });
    expect(creditedEnd(e, 100, 129 - FULL_RUN_SLACK_S, 130)).toEqual({ end: 127, cutBy: 'controller' });
  });

  it('ends at the last open reading after a failed one, and a later open reading bridges the gap', () => {
    const e = freshEvidence();
    noteReading(e, true, 100, null, 100);
    noteReading(e, true, 106, null, 100);
    noteFailure(e);
    expect(creditedEnd(e, 100, 140, 130)).toEqual({ end: 106, cutBy: 'outage' });
    noteReading(e, true, 120, null, 100);
    expect(creditedEnd(e, 100, 140, 130)).toEqual({ end: 130, cutBy: null });
  });

  it('ends at the last open reading when the device booted after the valve opened', () => {
    const e = freshEvidence();
    noteReading(e, true, 100, 50, 100);
    noteReading(e, true, 102, 50, 100);
    noteReading(e, false, 110, 105, 100);
    expect(e.rebootedAt).toBe(105);
    expect(creditedEnd(e, 100, 110, 130)).toEqual({ end: 102, cutBy: 'restart' });
  });

  it('knows whether a reading ever reported the valve (a station without readback)', () => {
    const e = freshEvidence();
    noteReading(e, undefined, 100, null, 100);
    noteFailure(e);
    expect(e).toMatchObject({ covered: false, lastOpen: null, gap: false });
    noteReading(e, false, 101, null, 100);
    expect(e).toMatchObject({ covered: true, lastOpen: null });
  });
});
