import { tempStore } from './temp-db';

const t = tempStore();
const sub = { endpoint: 'https://push.example/abc', p256dh: 'key1', auth: 'auth1', created_epoch: 100 };

describe('PushSubscriptionsRepository', () => {
  it('upserts idempotently, keeping the first subscription time and the newest keys', () => {
    const push = t.store().pushSubscriptions;
    push.upsert(sub);
    push.upsert(sub);
    push.upsert({ ...sub, p256dh: 'key2', auth: 'auth2', created_epoch: 999 });
    expect(push.list()).toEqual([{ ...sub, p256dh: 'key2', auth: 'auth2' }]);
  });

  it('removes by endpoint and reports the count', () => {
    const push = t.store().pushSubscriptions;
    push.upsert(sub);
    push.upsert({ ...sub, endpoint: 'https://push.example/def' });
    expect(push.remove(sub.endpoint)).toBe(1);
    expect(push.remove(sub.endpoint)).toBe(0);
    expect(push.list().map((s) => s.endpoint)).toEqual(['https://push.example/def']);
  });
});
