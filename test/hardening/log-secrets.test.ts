import { Writable } from 'node:stream';
import { createRootLogger } from '../../server/src/core/logger';
import { isSecretParameter, maskUrlSecrets } from '../../server/src/core/log-masking';
import { configToml, seedOwner, send } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';
import { GATEWAY_PASSWORD, INGEST_CONFIG, PASSKEY, WEBHOOK_ID, WEBHOOK_SECRET } from './ingest-config';

/**
 * Issue 16, item 6: the gateway PASSKEY and PASSWORD and the webhook token
 * were logged in request URLs (info on 4xx, debug on 200). Every log line, at
 * every level, masks secret-bearing query values and headers.
 */

const services = serviceTracker();

function capture(): { logger: ReturnType<typeof createRootLogger>; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { logger: createRootLogger('trace', { destination: sink }), text: () => text };
}

describe('maskUrlSecrets', () => {
  it('masks secret-bearing parameters by name and keeps the rest', () => {
    expect(maskUrlSecrets('/ingest/gateway?ID=KST1&PASSWORD=pw&tempf=70')).toBe(
      '/ingest/gateway?ID=KST1&PASSWORD=***&tempf=70',
    );
    expect(maskUrlSecrets('/x?PASSKEY=abc&token=t&access_token=a&api_key=k&appKey=1')).toBe(
      '/x?PASSKEY=***&token=***&access_token=***&api_key=***&appKey=1',
    );
    expect(maskUrlSecrets('/x?%74oken=t')).toBe('/x?%74oken=***');
    expect(maskUrlSecrets('https://user:pw@example.com/a?b=1')).toBe('https://***@example.com/a?b=1');
    expect(maskUrlSecrets('/plain/path')).toBe('/plain/path');
    expect(isSecretParameter('X-Webhook-Token')).toBe(true);
    expect(isSecretParameter('tempf')).toBe(false);
  });
});

describe('request logs never carry a secret', () => {
  it('at every level, for refused and accepted ingest requests and streams', async () => {
    const log = capture();
    const booted = await services.boot({
      configToml: INGEST_CONFIG,
      serviceOptions: { logger: log.logger },
    });
    const hook = `/ingest/webhook/${WEBHOOK_ID}`;
    const exchanges = [
      // Wunderground protocol: the query string is the upload (200 logs at debug).
      { path: `/ingest/gateway?ID=KST1&PASSWORD=${GATEWAY_PASSWORD}&PASSKEY=${PASSKEY}&tempf=70` },
      { path: `/ingest/gateway?PASSKEY=${PASSKEY}-nope&tempf=70` },
      { path: `/api/v1/ingest/gateway?PASSWORD=${GATEWAY_PASSWORD}` },
      { method: 'POST', path: `${hook}?token=${WEBHOOK_SECRET}`, body: { data: { temp_c: 20 } } },
      { method: 'POST', path: `${hook}?token=${WEBHOOK_SECRET}x`, body: { data: { temp_c: 20 } } },
      {
        method: 'POST',
        path: hook,
        headers: { 'X-Raincheck-Token': WEBHOOK_SECRET },
        body: { data: { temp_c: 20 } },
      },
    ];
    const statuses: number[] = [];
    for (const exchange of exchanges) statuses.push((await send(booted.port, exchange)).status);
    // Both outcomes are logged: accepted at debug, refused at info.
    expect(statuses).toEqual(expect.arrayContaining([200, 403, 404]));
    await booted.service.stop();

    const text = log.text();
    expect(text).toContain('PASSWORD=***');
    expect(text).toContain('token=***');
    for (const secret of [GATEWAY_PASSWORD, PASSKEY, WEBHOOK_SECRET]) expect(text).not.toContain(secret);
    const levels = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; url?: string })
      .filter((line) => line.url?.includes('ingest'))
      .map((line) => line.level);
    expect(new Set(levels)).toEqual(new Set([20, 30]));
  });

  it('a stream token is masked too', async () => {
    const log = capture();
    const booted = await services.boot({
      configToml: configToml({ mode: 'required' }),
      serviceOptions: { logger: log.logger },
    });
    const owner = await seedOwner(booted.service);
    await send(booted.port, { path: `/api/v1/config?access_token=${owner.token}` });
    await send(booted.port, { path: '/api/v1/config', headers: { Authorization: `Bearer ${owner.token}` } });
    await booted.service.stop();
    expect(log.text()).toContain('access_token=***');
    expect(log.text()).not.toContain(owner.token);
  });
});
