import { haLinkOptionsFromEnv, toWebsocketUrl } from '../../server/src/ha/ha-link';

describe('haLinkOptionsFromEnv', () => {
  it('uses the Supervisor proxy in add-on mode', () => {
    expect(haLinkOptionsFromEnv({ SUPERVISOR_TOKEN: 'sup-token' })).toEqual({
      url: 'ws://supervisor/core/websocket',
      token: 'sup-token',
      mode: 'addon',
    });
  });

  it('prefers SUPERVISOR_TOKEN over HA_URL and HA_TOKEN', () => {
    expect(
      haLinkOptionsFromEnv({ SUPERVISOR_TOKEN: 'sup', HA_URL: 'http://ha.local:8123', HA_TOKEN: 'llat' }),
    ).toEqual({ url: 'ws://supervisor/core/websocket', token: 'sup', mode: 'addon' });
  });

  it('converts a standalone http URL to the websocket endpoint', () => {
    expect(haLinkOptionsFromEnv({ HA_URL: 'http://homeassistant.local:8123', HA_TOKEN: 'llat' })).toEqual({
      url: 'ws://homeassistant.local:8123/api/websocket',
      token: 'llat',
      mode: 'standalone',
    });
  });

  it('trims values and treats empty ones as absent', () => {
    expect(
      haLinkOptionsFromEnv({ SUPERVISOR_TOKEN: '  ', HA_URL: ' http://10.0.0.5:8123/ ', HA_TOKEN: ' t ' }),
    ).toEqual({ url: 'ws://10.0.0.5:8123/api/websocket', token: 't', mode: 'standalone' });
  });

  it('is null without a complete configuration', () => {
    expect(haLinkOptionsFromEnv({})).toBeNull();
    expect(haLinkOptionsFromEnv({ HA_URL: 'http://ha.local:8123' })).toBeNull();
    expect(haLinkOptionsFromEnv({ HA_TOKEN: 'llat' })).toBeNull();
    expect(haLinkOptionsFromEnv({ HA_URL: '', HA_TOKEN: '' })).toBeNull();
    expect(haLinkOptionsFromEnv({ HA_URL: 'ftp://ha.local', HA_TOKEN: 'llat' })).toBeNull();
  });
});

describe('toWebsocketUrl', () => {
  it.each([
    ['http://ha.local:8123', 'ws://ha.local:8123/api/websocket'],
    ['https://my.duckdns.org', 'wss://my.duckdns.org/api/websocket'],
    ['https://my.duckdns.org:8443/', 'wss://my.duckdns.org:8443/api/websocket'],
    ['http://proxy.lan/homeassistant', 'ws://proxy.lan/homeassistant/api/websocket'],
    ['http://ha.local:8123/api', 'ws://ha.local:8123/api/websocket'],
    ['http://ha.local:8123/api/websocket', 'ws://ha.local:8123/api/websocket'],
    ['ws://ha.local:8123/api/websocket', 'ws://ha.local:8123/api/websocket'],
    ['wss://ha.example.com', 'wss://ha.example.com/api/websocket'],
    ['homeassistant.local:8123', 'ws://homeassistant.local:8123/api/websocket'],
    ['192.168.1.20:8123', 'ws://192.168.1.20:8123/api/websocket'],
    ['http://ha.local:8123/?x=1#frag', 'ws://ha.local:8123/api/websocket'],
  ])('%s -> %s', (input, expected) => {
    expect(toWebsocketUrl(input)).toBe(expected);
  });

  it.each(['mqtt://ha.local', 'http://', 'not a url at all'])('refuses %s', (input) => {
    expect(toWebsocketUrl(input)).toBeNull();
  });
});
