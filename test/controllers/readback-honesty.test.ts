import mqtt from 'mqtt';
import { configSchema } from '../../server/src/config/schema';
import { ControllerManager } from '../../server/src/controllers/controller-manager';
import { builtinControllerKinds } from '../../server/src/controllers/index';
import type { HaServices } from '../../server/src/controllers/types';
import { EventBus, type ControllerFailureEvent } from '../../server/src/core/bus';
import { systemClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { HaLink } from '../../server/src/ha/ha-link';
import { HaPeer, PEER_TOKEN, waitFor } from '../helpers/ha-peer';
import { startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';

/**
 * Readback honesty on the pushed kinds: when the MQTT broker (real Mosquitto)
 * or the Home Assistant link (the websocket peer) goes away, the zones the
 * controller reported turn to `running_known` false, keeping the epoch of the
 * last good reading, and the failure is announced once as
 * `controller.failure` (action `readback`).
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function manager(
  controller: Record<string, unknown>,
  zones: Record<string, unknown>,
  ha: HaServices | null,
) {
  const bus = new EventBus();
  const failures: ControllerFailureEvent[] = [];
  bus.on('controller.failure', (event) => failures.push(event));
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74 } },
    controllers: [{ default: true, ...controller }],
    zones,
  });
  const controllers = new ControllerManager({
    bus,
    clock: systemClock,
    logger: silentLogger(),
    config: () => ({ config, document: {}, appliedAtEpoch: 0, revision: 1 }),
    kinds: builtinControllerKinds(),
    fetch,
    ha: () => ha,
    forceDryRun: false,
    busyControllers: () => new Set(),
  });
  await controllers.start();
  cleanups.push(() => controllers.stop());
  return { controllers, failures };
}

describe('an MQTT controller whose broker goes away', () => {
  let broker: MosquittoBroker;
  beforeEach(async () => {
    broker = await startMosquitto();
    cleanups.push(() => broker.stop());
  });

  it('turns its zones to running_known false, keeping the last reading, and says so once', async () => {
    const { controllers, failures } = await manager(
      {
        id: 'valves',
        kind: 'mqtt_command',
        config: {
          broker_host: broker.host,
          broker_port: broker.port,
          timeout_s: 2,
          zone_command_map: { lawn: { command_topic: 'garden/lawn/set', state_topic: 'garden/lawn/state' } },
        },
      },
      { lawn: {} },
      null,
    );
    const device = await mqtt.connectAsync(broker.url);
    await waitFor(() => controllers.health()[0]?.observed_epoch !== null, 'the first reading', 5_000);
    await device.publishAsync('garden/lawn/state', 'ON', { retain: true });
    await device.endAsync();
    await waitFor(
      () => controllers.zoneStates().get('lawn')?.running === true,
      'the lawn reported on',
      5_000,
    );
    const seen = controllers.zoneStates().get('lawn')?.observed_epoch;
    expect(controllers.zoneStates().get('lawn')).toMatchObject({ running: true, running_known: true });

    await broker.stop();
    await waitFor(() => controllers.zoneStates().get('lawn')?.running_known === false, 'unknown', 10_000);
    expect(controllers.zoneStates().get('lawn')).toEqual({
      running: false,
      running_known: false,
      observed_epoch: seen,
    });
    expect(failures.filter((f) => f.action === 'readback')).toEqual([
      expect.objectContaining({
        controller_id: 'valves',
        kind: 'mqtt_command',
        code: 'controller_unreachable',
      }),
    ]);
  }, 20_000);
});

describe('a Home Assistant controller whose link drops', () => {
  it('turns its zones to running_known false until Home Assistant answers again', async () => {
    const states = [{ entity_id: 'switch.lawn', state: 'on', attributes: {} }];
    let peer = await HaPeer.start({ states });
    const port = peer.port;
    cleanups.push(() => peer.close());
    const link = new HaLink({
      url: peer.url,
      token: PEER_TOKEN,
      logger: silentLogger(),
      clock: systemClock,
      retryMinMs: 500,
      retryMaxMs: 500,
      requestTimeoutMs: 1_000,
    });
    cleanups.push(() => link.stop());
    await link.start();
    const { controllers, failures } = await manager(
      { id: 'ha', kind: 'ha_service_call', config: { timeout_s: 1 } },
      { lawn: { controller_station: 'switch.lawn' } },
      link,
    );
    await waitFor(() => controllers.zoneStates().get('lawn')?.running_known === true, 'the lawn read', 5_000);
    const seen = controllers.zoneStates().get('lawn')?.observed_epoch;

    // Home Assistant goes away (a restart): nothing answers until it is back.
    await peer.close();
    await waitFor(() => controllers.zoneStates().get('lawn')?.running_known === false, 'unknown', 5_000);
    expect(controllers.zoneStates().get('lawn')).toEqual({
      running: false,
      running_known: false,
      observed_epoch: seen,
    });
    expect(failures.filter((f) => f.action === 'readback')).toHaveLength(1);

    peer = await HaPeer.start({ states, port });
    await waitFor(() => controllers.zoneStates().get('lawn')?.running_known === true, 'known again', 10_000);
    expect(controllers.zoneStates().get('lawn')?.running).toBe(true);
  }, 20_000);
});
