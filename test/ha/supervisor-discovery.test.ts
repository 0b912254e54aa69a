import { json, LoopbackPeer, type SeenRequest } from '../helpers/loopback-peer';
import { serviceTracker } from '../helpers/service';
import { silentLogger } from '../../server/src/core/logger';
import { SupervisorDiscovery, supervisorDiscoveryFrom } from '../../server/src/ha/supervisor-discovery';

/**
 * Issue 26: the add-on announces itself to Home Assistant through the
 * Supervisor's discovery API (config.yaml `discovery: [raincheck]`). The peer
 * answers as supervisor/api/discovery.py does: `{result, data}` envelopes, a
 * 403 for a service the add-on does not list, the message id on success.
 */

const TOKEN = 'supervisor-token-for-tests';
const services = serviceTracker();

function supervisorPeer(listed: string[] = ['raincheck']): LoopbackPeer {
  return new LoopbackPeer((req: SeenRequest) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return json(401, { result: 'error', message: 'Unauthorized' });
    if (req.method === 'GET' && req.path === '/addons/self/info')
      return json(200, {
        result: 'ok',
        data: { slug: 'raincheck', hostname: 'a0d7b954-raincheck', ingress_port: 8099 },
      });
    if (req.method === 'POST' && req.path === '/discovery') {
      const body = JSON.parse(req.body) as { service: string };
      if (!listed.includes(body.service))
        return json(403, {
          result: 'error',
          message: 'Add-ons must list services they provide via discovery in their config!',
        });
      return json(200, { result: 'ok', data: { uuid: 'message-1' } });
    }
    if (req.method === 'DELETE' && req.path === '/discovery/message-1')
      return json(200, { result: 'ok', data: {} });
    return json(404, { result: 'error', message: 'not found' });
  });
}

const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

async function started(peer: LoopbackPeer): Promise<LoopbackPeer> {
  peers.push(peer);
  return peer.start();
}

function posts(peer: LoopbackPeer): SeenRequest[] {
  return peer.requests.filter((r) => r.method === 'POST' && r.path === '/discovery');
}

describe('Supervisor discovery', () => {
  it('is built only in the add-on (SUPERVISOR_TOKEN set)', () => {
    const deps = { logger: silentLogger(), fetch, installId: 'id' };
    expect(supervisorDiscoveryFrom({}, deps)).toBeNull();
    expect(supervisorDiscoveryFrom({ SUPERVISOR_TOKEN: TOKEN }, deps)).toBeInstanceOf(SupervisorDiscovery);
  });

  it('the started add-on posts its hostname, port and install uuid, and withdraws them on stop', async () => {
    const peer = await started(supervisorPeer());
    const booted = await services.boot({ env: { SUPERVISOR_TOKEN: TOKEN, SUPERVISOR_API: peer.baseUrl } });
    const deadline = Date.now() + 10_000;
    while (posts(peer).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [post] = posts(peer);
    expect(post).toBeDefined();
    expect(post?.headers['content-type']).toBe('application/json');
    const info = (await (await fetch(`http://127.0.0.1:${booted.port}/api/v1/info`)).json()) as {
      uuid: string;
    };
    expect(JSON.parse(post?.body ?? '')).toEqual({
      service: 'raincheck',
      config: { host: 'a0d7b954-raincheck', port: booted.port, uuid: info.uuid },
    });

    await booted.service.stop();
    expect(peer.requests.some((r) => r.method === 'DELETE' && r.path === '/discovery/message-1')).toBe(true);
  });

  it('a refusal (a service the add-on does not list) is a warning, not a failed start', async () => {
    const peer = await started(supervisorPeer([]));
    const warnings: string[] = [];
    const logger = silentLogger();
    const discovery = new SupervisorDiscovery({
      logger: {
        ...logger,
        child: () => ({ ...logger, warn: (_o: unknown, msg: string) => warnings.push(msg) }),
      } as never,
      fetch,
      supervisorUrl: peer.baseUrl,
      token: TOKEN,
      installId: 'install-1',
    });
    await expect(discovery.announce(8099)).resolves.toBeNull();
    expect(warnings).toEqual(['Supervisor discovery failed: set Raincheck up in HA by hand']);
    await discovery.stop();
    expect(peer.requests.some((r) => r.method === 'DELETE')).toBe(false);
  });

  it('never sends the token anywhere but the Authorization header', async () => {
    const peer = await started(supervisorPeer());
    const discovery = new SupervisorDiscovery({
      logger: silentLogger(),
      fetch,
      supervisorUrl: peer.baseUrl,
      token: TOKEN,
      installId: 'install-1',
    });
    await expect(discovery.announce(8123)).resolves.toBe('message-1');
    for (const request of peer.requests) {
      expect(request.url).not.toContain(TOKEN);
      expect(request.body).not.toContain(TOKEN);
    }
  });
});
