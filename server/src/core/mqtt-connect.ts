import type { IClientOptions, MqttClient } from 'mqtt';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * Connects an MQTT client over TCP (`mqtt`) or TLS (`mqtts`), the only two
 * transports the service uses. mqtt's own `connect()` requires its WebSocket
 * (ws), SOCKS (socks, smart-buffer, ip-address) and browser transports when
 * the first client starts, though none is used: about 1.5 MB of an idle
 * install with a broker (docs/architecture.md "Idle memory"). The client
 * class is the package's own; the streams are built as its tcp and tls
 * builders build them (TLS verifies the broker's certificate and host name).
 * MQTTJS_SOCKS_PROXY is not honoured.
 */
export function connectMqtt(options: IClientOptions): MqttClient {
  // The client class loads only when a broker is configured (it is large for an idle service).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: Client } = require('mqtt/lib/client') as { default: typeof MqttClient };
  const opts: IClientOptions = { ...options, protocol: options.protocol ?? 'mqtt' };
  opts.defaultProtocol = opts.protocol;
  const client = new Client(
    (self) => (opts.protocol === 'mqtts' ? tlsStream(self, opts) : tcpStream(opts)),
    opts,
  );
  // As mqtt's connect() does: errors reach the caller's own listeners; this one keeps none unhandled.
  client.on('error', () => undefined);
  return client;
}

function tcpStream(opts: IClientOptions): Socket {
  return netConnect({ host: opts.host ?? 'localhost', port: opts.port ?? 1883 });
}

function tlsStream(client: MqttClient, opts: IClientOptions): Socket {
  const host = opts.host ?? 'localhost';
  const socket = tlsConnect({
    host,
    port: opts.port ?? 8883,
    ...(isIP(host) === 0 ? { servername: host } : {}),
    rejectUnauthorized: true,
  });
  const onTlsError = (err: Error): void => {
    client.emit('error', err);
    socket.end();
  };
  socket.on('secureConnect', () => {
    if (!socket.authorized) socket.emit('error', new Error('TLS not authorized'));
    else socket.removeListener('error', onTlsError);
  });
  socket.on('error', onTlsError);
  return socket;
}
