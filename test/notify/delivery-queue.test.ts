import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { DeliveryLog } from '../../server/src/notify/delivery-log';
import { DeliveryQueue, MAX_QUEUED } from '../../server/src/notify/delivery-queue';
import type { Channel, ChannelId, Notice, SendResult } from '../../server/src/notify/types';

/**
 * The per-channel outbox on jest's fake timers (the clock follows them):
 * back-off between attempts, giving up, order behind a failing notice, a
 * hung send, the resume state, the backlog bound, and independence of
 * channels.
 */

const DELAYS = [1_000, 5_000, 20_000];
let clock: ManualClock;

beforeEach(() => {
  jest.useFakeTimers({ now: 1_750_000_000_000 });
  clock = { nowMs: () => Date.now() } as ManualClock;
});
afterEach(() => jest.useRealTimers());

function notice(n: number): Notice {
  return {
    event: 'watering_finished',
    severity: 'info',
    title: `notice ${n}`,
    body: '',
    link: '/',
    tag: `t${n}`,
    key: `t${n}`,
    window_s: 0,
    epoch: 0,
  };
}

/** A channel whose answers the test scripts; it records what it was asked and when. */
class ScriptedChannel implements Channel {
  readonly calls: { title: string; at: number; resume: unknown }[] = [];
  constructor(
    readonly id: ChannelId,
    private readonly answer: (title: string, attempt: number) => SendResult | Promise<SendResult>,
  ) {}
  async send(n: Notice, resume: unknown): Promise<SendResult> {
    this.calls.push({ title: n.title, at: Date.now(), resume });
    return this.answer(n.title, this.calls.filter((c) => c.title === n.title).length);
  }
}

function queueFor(channel: Channel | (() => Channel | null), log = new DeliveryLog(null)) {
  const queue = new DeliveryQueue({
    channel: typeof channel === 'function' ? 'ntfy' : channel.id,
    sender: typeof channel === 'function' ? channel : () => channel,
    log,
    clock,
    logger: silentLogger(),
    retryDelaysMs: DELAYS,
  });
  return { queue, log };
}

const start = () => Date.now();

it('retries with growing back-off and records one delivery with its attempts', async () => {
  const channel = new ScriptedChannel('ntfy', (_t, attempt) =>
    attempt < 3 ? { status: 'retry', detail: 'HTTP 503' } : { status: 'sent', detail: 'published' },
  );
  const { queue, log } = queueFor(channel);
  const t0 = start();
  const first = await queue.enqueue(notice(1));
  expect(first).toEqual({ status: 'retry', detail: 'HTTP 503' });
  expect(queue.state().retrying).toMatchObject({ attempts: 1, next_epoch: Math.floor(t0 / 1000) + 1 });
  await jest.advanceTimersByTimeAsync(999);
  expect(channel.calls).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1);
  expect(channel.calls).toHaveLength(2);
  await jest.advanceTimersByTimeAsync(5_000);
  expect(channel.calls.map((c) => c.at - t0)).toEqual([0, 1_000, 6_000]);
  expect(queue.state()).toEqual({ queued: 0, retrying: null });
  expect(log.recent(10)).toEqual([
    expect.objectContaining({ status: 'sent', attempts: 3, detail: 'published' }),
  ]);
});

it('gives up after the last back-off and records the failure', async () => {
  const channel = new ScriptedChannel('ntfy', () => ({ status: 'retry', detail: 'connection refused' }));
  const { queue, log } = queueFor(channel);
  await queue.enqueue(notice(1));
  await jest.advanceTimersByTimeAsync(1_000 + 5_000 + 20_000);
  expect(channel.calls).toHaveLength(4);
  expect(log.last('ntfy', 'failed')).toMatchObject({
    status: 'failed',
    attempts: 4,
    detail: 'gave up after 4 attempts: connection refused',
  });
  await jest.advanceTimersByTimeAsync(120_000);
  expect(channel.calls).toHaveLength(4);
});

it('keeps order: notices queued behind a failing one wait and then go in turn', async () => {
  const channel = new ScriptedChannel('slack', (title, attempt) =>
    title === 'notice 1' && attempt === 1
      ? { status: 'retry', detail: '500' }
      : { status: 'sent', detail: 'ok' },
  );
  const { queue } = queueFor(channel);
  void queue.enqueue(notice(1));
  void queue.enqueue(notice(2));
  await jest.advanceTimersByTimeAsync(0);
  expect(queue.state().queued).toBe(2);
  await jest.advanceTimersByTimeAsync(1_000);
  expect(channel.calls.map((c) => c.title)).toEqual(['notice 1', 'notice 1', 'notice 2']);
});

it('hands the resume state back on the next attempt', async () => {
  const channel = new ScriptedChannel('web_push', (_t, attempt) =>
    attempt === 1
      ? { status: 'retry', detail: 'one device down', resume: ['https://push/a'] }
      : { status: 'sent', detail: 'ok' },
  );
  const { queue } = queueFor(channel);
  await queue.enqueue(notice(1));
  await jest.advanceTimersByTimeAsync(1_000);
  expect(channel.calls.map((c) => c.resume)).toEqual([undefined, ['https://push/a']]);
});

it('counts a send that never answers as a failed attempt after a minute', async () => {
  let calls = 0;
  const hung: Channel = {
    id: 'email',
    send: () =>
      calls++ === 0 ? new Promise(() => undefined) : Promise.resolve({ status: 'sent', detail: 'ok' }),
  };
  const { queue, log } = queueFor(hung);
  const outcome = queue.enqueue(notice(1));
  await jest.advanceTimersByTimeAsync(60_000);
  expect(await outcome).toEqual({ status: 'retry', detail: 'no answer within 60 s' });
  await jest.advanceTimersByTimeAsync(1_000);
  expect(log.recent(1)[0]).toMatchObject({ status: 'sent', attempts: 2 });
});

it('a stuck channel never delays another channel', async () => {
  const stuck: Channel = { id: 'email', send: () => new Promise(() => undefined) };
  const fast = new ScriptedChannel('ntfy', () => ({ status: 'sent', detail: 'ok' }));
  const a = queueFor(stuck).queue;
  const b = queueFor(fast).queue;
  void a.enqueue(notice(1));
  expect(await b.enqueue(notice(1))).toEqual({ status: 'sent', detail: 'ok' });
  expect(a.state().queued).toBe(1);
  a.stop();
});

it('bounds the backlog: the oldest waiting notice is dropped and recorded', async () => {
  const channel = new ScriptedChannel('ntfy', () => ({ status: 'retry', detail: 'down' }));
  const { queue, log } = queueFor(channel);
  for (let n = 0; n <= MAX_QUEUED; n++) void queue.enqueue(notice(n));
  await jest.advanceTimersByTimeAsync(0);
  expect(queue.state().queued).toBe(MAX_QUEUED);
  expect(log.recent(5)).toEqual([expect.objectContaining({ title: 'notice 1', status: 'dropped' })]);
  queue.stop();
});

it('drops what waits for a channel the config no longer has', async () => {
  let current: Channel | null = new ScriptedChannel('ntfy', () => ({ status: 'retry', detail: 'down' }));
  const { queue, log } = queueFor(() => current);
  await queue.enqueue(notice(1));
  current = null;
  await jest.advanceTimersByTimeAsync(1_000);
  expect(log.recent(1)[0]).toMatchObject({
    status: 'dropped',
    detail: 'the channel is no longer configured',
  });
  expect(queue.state()).toEqual({ queued: 0, retrying: null });
});
