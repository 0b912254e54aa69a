import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write';
import type { MqttSettings } from './mqtt/settings';

/**
 * One entity per fact: the companion Home Assistant integration claims this
 * install (`PUT /ha/claim {claimed: true}`) when it sets it up, and releases
 * it when its config entry is removed. While claimed, MQTT discovery is off:
 * the publisher removes the configs it published (empty retained payloads)
 * and publishes none, so HA never shows an MQTT copy of an entity the
 * integration already provides. MQTT commands stay as configured. The claim
 * is kept in `<data>/ha-claim.json` (atomic writes), so a restart does not
 * bring the copies back; without a writable data folder it lives in memory.
 */

export const CLAIM_FILE = 'ha-claim.json';

export interface ClaimState {
  claimed: boolean;
  /** When the current claim was made; null when not claimed. */
  claimed_epoch: number | null;
}

const UNCLAIMED: ClaimState = { claimed: false, claimed_epoch: null };

export class IntegrationClaim {
  private state: ClaimState;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly file: string | null) {
    this.state = file ? readClaim(file) : UNCLAIMED;
  }

  static inDataDir(dataDir: string): IntegrationClaim {
    return new IntegrationClaim(join(dataDir, CLAIM_FILE));
  }

  get(): ClaimState {
    return this.state;
  }

  /** Records the claim (or its release); listeners hear only a change. */
  set(claimed: boolean, nowEpoch: number): ClaimState {
    if (claimed === this.state.claimed) return this.state;
    const next: ClaimState = claimed ? { claimed, claimed_epoch: nowEpoch } : UNCLAIMED;
    try {
      if (this.file) writeFileAtomic(this.file, `${JSON.stringify(next)}\n`);
    } catch {
      // An unwritable data folder keeps the claim for this run only (the install id is missing
      // there too, and with it MQTT discovery).
    }
    this.state = next;
    for (const listener of this.listeners) listener();
    return next;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}

function readClaim(file: string): ClaimState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return UNCLAIMED;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ClaimState>;
    return parsed.claimed === true
      ? {
          claimed: true,
          claimed_epoch: typeof parsed.claimed_epoch === 'number' ? parsed.claimed_epoch : null,
        }
      : UNCLAIMED;
  } catch {
    return UNCLAIMED;
  }
}

/** The broker settings as the claim leaves them: a claimed install publishes no discovery. */
export function settingsUnderClaim(
  settings: MqttSettings | null,
  claim: IntegrationClaim,
): MqttSettings | null {
  return settings && claim.get().claimed ? { ...settings, publish: false } : settings;
}
