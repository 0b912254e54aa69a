import request from 'supertest';
import { configToml, cookiePair, OWNER, OWNER_PASSWORD } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/** Spec 5.5: wizard routes are public only until the first account exists. */

const services = serviceTracker();

describe('wizard route access', () => {
  it.each([
    ['wizard mode (no config)', undefined],
    ['an auth-required config', configToml({ mode: 'required' })],
  ])('%s: public before the owner account, 401 for anonymous callers after', async (_name, toml) => {
    const booted = await services.boot(toml === undefined ? {} : { configToml: toml });
    const server = booted.service.server;
    const before = await request(server).get('/api/v1/wizard/state').expect(200);
    expect(before.body.setup_complete).toBe(false);
    await request(server).get('/api/v1/wizard/draft').expect(200);

    const setup = await request(server)
      .post('/api/v1/auth/setup')
      .send({ username: OWNER, password: OWNER_PASSWORD })
      .expect(201);

    for (const path of ['/api/v1/wizard/state', '/api/v1/wizard/draft', '/api/wizard/geocode?q=x']) {
      const res = await request(server).get(path);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    const probe = await request(server).post('/api/v1/wizard/test_source').send({ source: {} });
    expect(probe.status).toBe(401);

    // The owner's session still reaches them.
    const owner = await request(server)
      .get('/api/v1/wizard/state')
      .set('Cookie', cookiePair(setup.headers['set-cookie']));
    expect(owner.status).toBe(200);
    expect(owner.body.setup_complete).toBe(true);
  });
});
