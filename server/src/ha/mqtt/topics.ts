import type { Platform } from '../entities/descriptor';

/**
 * The topic layout. Discovery is per entity, one retained config topic each:
 *
 *   <prefix>/<platform>/raincheck_<install>/<key>/config   discovery config (retained; empty = removed)
 *   raincheck/<install>/<key>/state                        state (retained; `None` = unknown)
 *   raincheck/<install>/<key>/set                          commands (entities with a command)
 *   raincheck/<install>/status                             availability: online / offline (retained, last will)
 *   <prefix>/status                                        Home Assistant's birth message (`online`)
 */

export const STATE_ROOT = 'raincheck';
export const ONLINE = 'online';
export const OFFLINE = 'offline';

export class TopicLayout {
  constructor(
    readonly installId: string,
    readonly prefix: string,
  ) {}

  /** The discovery node id: `raincheck_<install>`. */
  get nodeId(): string {
    return `raincheck_${this.installId}`;
  }

  config(platform: Platform, key: string): string {
    return `${this.prefix}/${platform}/${this.nodeId}/${key}/config`;
  }

  /** Every config topic of this install (a subscription filter). */
  get allConfigs(): string {
    return `${this.prefix}/+/${this.nodeId}/+/config`;
  }

  state(key: string): string {
    return `${STATE_ROOT}/${this.installId}/${key}/state`;
  }

  command(key: string): string {
    return `${STATE_ROOT}/${this.installId}/${key}/set`;
  }

  /** Every command topic of this install (a subscription filter). */
  get allCommands(): string {
    return `${STATE_ROOT}/${this.installId}/+/set`;
  }

  get status(): string {
    return `${STATE_ROOT}/${this.installId}/status`;
  }

  /** Home Assistant announces itself here (`online`) when it (re)starts. */
  get birth(): string {
    return `${this.prefix}/status`;
  }

  /** The entity key of a command topic, or null for any other topic. */
  commandKey(topic: string): string | null {
    return this.keyBetween(topic, `${STATE_ROOT}/${this.installId}/`, '/set');
  }

  /** The platform and key of one of this install's config topics, or null. */
  configEntry(topic: string): { platform: string; key: string } | null {
    const parts = topic.split('/');
    const prefixParts = this.prefix.split('/').length;
    if (parts.length !== prefixParts + 4 || parts.at(-1) !== 'config') return null;
    if (parts.slice(0, prefixParts).join('/') !== this.prefix || parts[prefixParts + 1] !== this.nodeId)
      return null;
    const platform = parts[prefixParts] as string;
    const key = parts[prefixParts + 2] as string;
    return isKey(key) && isKey(platform) ? { platform, key } : null;
  }

  private keyBetween(topic: string, head: string, tail: string): string | null {
    if (!topic.startsWith(head) || !topic.endsWith(tail)) return null;
    const key = topic.slice(head.length, topic.length - tail.length);
    return isKey(key) ? key : null;
  }
}

function isKey(text: string): boolean {
  return /^[a-z0-9_]+$/.test(text);
}
