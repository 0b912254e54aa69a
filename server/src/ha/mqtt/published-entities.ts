import type { CatalogView, EntityDescriptor } from '../entities/descriptor';
import { discoveryPayload, type DiscoveryIdentity } from './discovery-payload';

/**
 * What this process has published, in memory only (nothing is persisted),
 * and the messages that bring the broker to a new catalog: changed configs,
 * changed states, and for every entity that is gone (a deleted zone, a
 * bucket whose deficit is gone, a weather field that vanished) an empty
 * retained payload on its config topic and its state topic, which removes
 * it from Home Assistant (spec 6.3). Config topics left retained by an
 * earlier run can be adopted so the next full publish removes them too.
 */

export interface RetainedMessage {
  topic: string;
  /** Empty: clears the retained message (and, on a config topic, removes the entity). */
  payload: string;
}

/** Which states a sync may publish; configs are always brought up to date. */
export type StateScope = 'all' | 'weather' | 'irrigation';

/** The state published for an unknown value: Home Assistant shows `unknown`. */
export const UNKNOWN_STATE = 'None';

interface PublishedConfig {
  key: string;
  stateTopic: string | null;
  /** The JSON last published; null for a config adopted from the broker. */
  payload: string | null;
}

export function isWeatherEntity(entity: EntityDescriptor): boolean {
  return entity.requires.startsWith('weather:');
}

export class PublishedEntities {
  /** Config topic -> what was published on it. */
  private readonly configs = new Map<string, PublishedConfig>();
  /** Entity key -> the state last published. */
  private readonly states = new Map<string, string>();

  constructor(private readonly identity: DiscoveryIdentity) {}

  get size(): number {
    return this.configs.size;
  }

  /** The keys with a published (or adopted) config. */
  keys(): string[] {
    return [...new Set([...this.configs.values()].map((entry) => entry.key))].sort();
  }

  /** A retained config of this install found on the broker (an earlier run's). */
  adopt(platform: string, key: string): void {
    const topic = this.identity.topics.config(platform as EntityDescriptor['platform'], key);
    if (this.configs.has(topic)) return;
    this.configs.set(topic, { key, stateTopic: this.identity.topics.state(key), payload: null });
  }

  /**
   * The messages for a new catalog. `full` republishes every config and state
   * (on connect and on Home Assistant's birth); otherwise only what changed,
   * and only states in `scope` (plus those of entities that just appeared).
   */
  sync(
    entities: readonly EntityDescriptor[],
    view: CatalogView,
    options: { full?: boolean; scope?: StateScope } = {},
  ): RetainedMessage[] {
    const full = options.full ?? false;
    const scope = options.scope ?? 'all';
    const topics = this.identity.topics;
    const current = new Map(entities.map((entity) => [topics.config(entity.platform, entity.key), entity]));
    const currentKeys = new Set(entities.map((entity) => entity.key));
    const messages: RetainedMessage[] = [];

    for (const [topic, entry] of [...this.configs]) {
      if (current.has(topic)) continue;
      messages.push({ topic, payload: '' });
      if (!currentKeys.has(entry.key)) {
        if (entry.stateTopic) messages.push({ topic: entry.stateTopic, payload: '' });
        this.states.delete(entry.key);
      }
      this.configs.delete(topic);
    }

    const fresh = new Set<string>();
    for (const [topic, entity] of current) {
      const payload = JSON.stringify(discoveryPayload(entity, this.identity));
      const before = this.configs.get(topic);
      if (!before || before.payload === null) fresh.add(entity.key);
      if (!full && before?.payload === payload) continue;
      messages.push({ topic, payload });
      const stateTopic = entity.platform === 'button' ? null : topics.state(entity.key);
      this.configs.set(topic, { key: entity.key, stateTopic, payload });
    }

    for (const entity of entities) {
      if (!entity.state) continue;
      const inScope =
        scope === 'all' || fresh.has(entity.key) || (scope === 'weather') === isWeatherEntity(entity);
      if (!full && !inScope) continue;
      const value = entity.state(view) ?? UNKNOWN_STATE;
      if (!full && this.states.get(entity.key) === value) continue;
      messages.push({ topic: topics.state(entity.key), payload: value });
      this.states.set(entity.key, value);
    }
    return messages;
  }

  /** Empty payloads for everything published (publishing turned off, or the prefix moved); forgets it all. */
  clear(): RetainedMessage[] {
    const messages: RetainedMessage[] = [];
    for (const [topic, entry] of this.configs) {
      messages.push({ topic, payload: '' });
      if (entry.stateTopic) messages.push({ topic: entry.stateTopic, payload: '' });
    }
    this.configs.clear();
    this.states.clear();
    return messages;
  }
}
