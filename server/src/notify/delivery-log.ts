import type {
  DeliveryRecord,
  DeliveryStatus,
  NotificationDeliveriesRepository,
} from '../store/notification-deliveries';
import { DELIVERIES_KEPT_PER_CHANNEL } from '../store/notification-deliveries';

/**
 * The last deliveries and failures per channel: in the database when it is
 * open (they survive a restart and reach diagnostics), else in memory.
 */
export class DeliveryLog {
  private readonly memory: DeliveryRecord[] = [];

  constructor(private readonly repository: NotificationDeliveriesRepository | null) {}

  record(entry: DeliveryRecord): void {
    if (this.repository) {
      this.repository.record(entry);
      return;
    }
    this.memory.unshift(entry);
    const kept = this.memory.filter((r) => r.channel === entry.channel);
    if (kept.length > DELIVERIES_KEPT_PER_CHANNEL)
      this.memory.splice(this.memory.lastIndexOf(kept.at(-1)!), 1);
  }

  /** Newest first. */
  recent(limit: number): DeliveryRecord[] {
    return this.repository ? this.repository.recent(limit) : this.memory.slice(0, limit);
  }

  last(channel: string, status: DeliveryStatus): DeliveryRecord | null {
    if (this.repository) return this.repository.last(channel, status);
    return this.memory.find((r) => r.channel === channel && r.status === status) ?? null;
  }
}
