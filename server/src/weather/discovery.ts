import { createSocket } from 'node:dgram';
import type { TempestMessage } from './sources/tempest/tempest-messages';
import { compareText } from '../core/compare';

/**
 * LAN discovery by listening only: Tempest hubs broadcast on UDP 50222, so a
 * few seconds of listening finds every hub and its address without sending a
 * packet. The socket shares the port with a running tempest_udp source.
 */

export const TEMPEST_PORT = 50222;
export const DISCOVERY_LISTEN_MS = 3000;

export interface DiscoveredGateway {
  kind: 'tempest_hub';
  serial: string;
  host: string;
  stations: string[];
  suggested_source: {
    kind: 'tempest_udp';
    priority: number;
    config: { bind_addr: string; hub_serial: string };
  };
}

type TempestMessages = typeof import('./sources/tempest/tempest-messages');

export async function listenForGateways(
  listenMs = DISCOVERY_LISTEN_MS,
  port = TEMPEST_PORT,
  address = '0.0.0.0',
): Promise<{ listened_ms: number; gateways: DiscoveredGateway[]; error: string | null }> {
  // The Tempest parser loads with the first sweep (an idle service never runs one).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseTempestDatagram } = require('./sources/tempest/tempest-messages') as TempestMessages;
  const found = new Map<string, DiscoveredGateway>();
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  socket.on('message', (buffer, remote) => {
    const message = parseTempestDatagram(buffer.toString('utf8'));
    const hub = message ? hubSerialOf(message) : null;
    if (!message || !hub) return;
    const entry = found.get(hub) ?? {
      kind: 'tempest_hub' as const,
      serial: hub,
      host: remote.address,
      stations: [],
      suggested_source: {
        kind: 'tempest_udp' as const,
        priority: 100,
        config: { bind_addr: `0.0.0.0:${port}`, hub_serial: hub },
      },
    };
    const station = stationSerialOf(message);
    if (station && !entry.stations.includes(station)) entry.stations.push(station);
    found.set(hub, entry);
  });
  const error = await new Promise<string | null>((resolve) => {
    socket.once('error', (err) => resolve(err.message));
    socket.bind(port, address, () => resolve(null));
  });
  if (error === null) await new Promise((resolve) => setTimeout(resolve, listenMs));
  socket.close();
  return {
    listened_ms: listenMs,
    gateways: [...found.values()].sort((a, b) => compareText(a.serial, b.serial)),
    error,
  };
}

function hubSerialOf(message: TempestMessage): string | null {
  return message.hubSerial;
}

function stationSerialOf(message: TempestMessage): string | null {
  return message.type === 'hub_status' ? null : message.serialNumber;
}
