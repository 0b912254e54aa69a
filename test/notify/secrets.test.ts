import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { REDACTED_LOG_PATHS } from '../../server/src/core/logger';
import { refusedBaseUrl } from '../helpers/loopback-peer';
import { NtfyPeer } from '../helpers/ntfy-peer';
import { serviceTracker } from '../helpers/service';

/**
 * The ntfy token, the SMTP password, the webhook URL (it carries its token)
 * and the VAPID private key stay out of every log line (the service's logger
 * at trace) and every answer, while the channels fail and retry.
 */

const services = serviceTracker();

it('never shows a notification secret in logs or answers, even while channels fail', async () => {
  const lines: string[] = [];
  const logger = pino(
    {
      level: 'trace',
      base: { service: 'raincheck' },
      redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    },
    { write: (line: string) => void lines.push(line) },
  );
  const ntfy = await new NtfyPeer({ topic: 'yard', token: 'tk_the_right_token_000' }).start();
  const down = await refusedBaseUrl();
  const secrets = {
    ntfy: 'tk_wrong_but_secret_1234567',
    webhook: `${down}/services/T000/B000/webhooksecrettoken9876`,
    smtp: 'smtp-secret-password-5555',
  };
  try {
    const booted = await services.boot({
      serviceOptions: { logger, notify: { retryDelaysMs: [20, 20] } },
      configToml: `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
[notifications.ntfy]
base_url = "${ntfy.baseUrl}"
topic = "yard"
auth_token = "${secrets.ntfy}"
[notifications.slack]
webhook_url = "${secrets.webhook}"
[notifications.email]
smtp_host = "127.0.0.1"
smtp_port = ${new URL(down).port}
username = "me@example.net"
password = "${secrets.smtp}"
from_address = "me@example.net"
to_address = "me@example.net"
`,
    });
    const server = booted.service.server;
    const answers: string[] = [];
    const test = await request(server).post('/api/v1/notifications/test').send({}).expect(200);
    answers.push(test.text);
    expect(test.body.results.map((r: { channel: string; status: string }) => [r.channel, r.status])).toEqual([
      ['web_push', 'skipped'],
      ['ntfy', 'failed'],
      ['slack', 'retry'],
      ['email', 'retry'],
    ]);
    // A real notice goes through the queues: retried, then given up, on the failing channels.
    booted.service.bus.emit('anomaly.new', {
      severity: 'warning',
      type: 'rain_gauge_stuck',
      description: 'The gauge read 0 through 1.2 in of radar rain',
      epoch: 0,
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    answers.push((await request(server).get('/api/v1/notifications').expect(200)).text);
    answers.push((await request(server).get('/api/v1/config').expect(200)).text);
    answers.push((await request(server).get('/api/v1/config/raw').expect(200)).text);
    const vapid = JSON.parse(fs.readFileSync(path.join(booted.dataDir, 'private', 'vapid.json'), 'utf8')) as {
      private_key: string;
    };
    const all = { ...secrets, webhookToken: 'webhooksecrettoken9876', vapid: vapid.private_key };
    const text = [...lines, ...answers].join('\n');
    expect(
      Object.entries(all)
        .filter(([, value]) => text.includes(value))
        .map(([name]) => name),
    ).toEqual([]);
    // The failures themselves are visible, without the secrets.
    expect(answers[1]).toContain('gave up after 3 attempts');
    expect(lines.some((line) => line.includes('notification not delivered, retrying'))).toBe(true);
  } finally {
    await ntfy.close();
  }
});
