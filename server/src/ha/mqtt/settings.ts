import type { RaincheckConfig } from '../../config/schema';

/**
 * Where the MQTT discovery publisher connects and what it may do. The
 * config's `notifications.mqtt` block wins (its schema holds the defaults);
 * without one, the environment the add-on's run script exports from the
 * Supervisor's MQTT service (MQTT_HOST, MQTT_PORT, MQTT_USERNAME,
 * MQTT_PASSWORD, MQTT_DISCOVERY_PREFIX, MQTT_TLS). `features.enable_mqtt_publish`
 * false turns publishing off either way. No host anywhere: null, and main.ts
 * builds no publisher.
 */

export interface MqttSettings {
  host: string;
  port: number;
  tls: boolean;
  username: string | null;
  password: string | null;
  discoveryPrefix: string;
  /** Discovery configs, states and availability. */
  publish: boolean;
  /** The `raincheck/<install>/+/set` command topics. */
  subscribe: boolean;
  /** Where the settings came from (logged; never the password). */
  origin: 'config' | 'environment';
}

export const DEFAULT_DISCOVERY_PREFIX = 'homeassistant';
const DEFAULT_PORT = 1883;
const DEFAULT_TLS_PORT = 8883;

export function mqttSettingsFrom(
  config: Pick<RaincheckConfig, 'notifications' | 'features'> | null,
  vars: NodeJS.ProcessEnv,
): MqttSettings | null {
  const publishFeature = config?.features.enable_mqtt_publish ?? true;
  const block = config?.notifications.mqtt;
  if (block) {
    return {
      host: block.host,
      port: block.port,
      tls: false,
      username: block.username || null,
      password: block.password || null,
      discoveryPrefix: block.discovery_prefix,
      publish: block.publish_enabled && publishFeature,
      subscribe: block.subscribe_enabled,
      origin: 'config',
    };
  }
  const host = vars.MQTT_HOST?.trim();
  if (!host) return null;
  const tls = vars.MQTT_TLS?.trim() === '1';
  return {
    host,
    port: envPort(vars.MQTT_PORT) ?? (tls ? DEFAULT_TLS_PORT : DEFAULT_PORT),
    tls,
    username: vars.MQTT_USERNAME || null,
    password: vars.MQTT_PASSWORD || null,
    discoveryPrefix: vars.MQTT_DISCOVERY_PREFIX?.trim() || DEFAULT_DISCOVERY_PREFIX,
    publish: publishFeature,
    // The add-on offers the commands by default: Home Assistant is the reason it has a broker.
    subscribe: true,
    origin: 'environment',
  };
}

function envPort(value: string | undefined): number | null {
  const port = Number(value?.trim() || NaN);
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : null;
}

/** The fields a connection is made from: a change in any means reconnecting. */
export function connectionKey(settings: MqttSettings | null): string | null {
  if (!settings || !(settings.publish || settings.subscribe)) return null;
  const { host, port, tls, username, password, discoveryPrefix, publish, subscribe } = settings;
  return JSON.stringify([host, port, tls, username, password, discoveryPrefix, publish, subscribe]);
}
