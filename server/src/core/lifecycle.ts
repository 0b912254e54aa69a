/**
 * A long-lived part of the service (sources, controllers, MQTT, HA link,
 * scheduler, HTTP server). Constructors take only dependencies; work begins
 * in start() and ends in stop(), which main.ts calls in reverse order.
 */
export interface Module {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
