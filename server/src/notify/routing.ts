import type { NotificationRoutesRepository } from '../store/notification-routes';
import { CATALOG, isEventId, type EventId } from './catalog';
import { CHANNEL_IDS, type ChannelId } from './types';

/**
 * Which events go to which channel: the owner's choices from the settings
 * page (stored per event and channel in the database, so a config edit never
 * loses them and a backup keeps them), over each event's catalog default.
 * A choice for a channel that is not configured is kept for when it is.
 */

export type RouteTable = Record<EventId, Record<ChannelId, boolean>>;

export class RoutingError extends Error {}

export class Routing {
  constructor(private readonly repository: NotificationRoutesRepository | null) {}

  get persisted(): boolean {
    return this.repository !== null;
  }

  table(): RouteTable {
    const table = {} as RouteTable;
    for (const entry of CATALOG) {
      table[entry.id] = Object.fromEntries(
        CHANNEL_IDS.map((channel) => [channel, entry.defaults.includes(channel)]),
      ) as Record<ChannelId, boolean>;
    }
    for (const route of this.repository?.list() ?? []) {
      if (isEventId(route.event) && isChannelId(route.channel))
        table[route.event][route.channel] = route.enabled;
    }
    return table;
  }

  channelsFor(event: EventId): ChannelId[] {
    const row = this.table()[event];
    return CHANNEL_IDS.filter((channel) => row[channel]);
  }

  /** Applies a partial table (`{event: {channel: boolean}}`); unknown names are refused before anything is written. */
  update(changes: Record<string, Record<string, boolean>>): void {
    if (!this.repository) throw new RoutingError('the database is unavailable: choices cannot be saved');
    const routes = Object.entries(changes).flatMap(([event, channels]) => {
      if (!isEventId(event)) throw new RoutingError(`unknown event "${event}"`);
      return Object.entries(channels).map(([channel, enabled]) => {
        if (!isChannelId(channel)) throw new RoutingError(`unknown channel "${channel}"`);
        return { event, channel, enabled };
      });
    });
    this.repository.setMany(routes);
  }
}

export function isChannelId(value: string): value is ChannelId {
  return (CHANNEL_IDS as readonly string[]).includes(value);
}
