import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { DecryptionError, open, seal } from './aead';

/** A master key and its public fingerprint, stored next to every key it wraps. */
interface MasterKey {
  id: string;
  key: Buffer;
}

function toMasterKey(base64: string): MasterKey {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('A master key must be 32 bytes');
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

export function generateMasterKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * The current master key plus previous ones still accepted for unwrapping,
 * which is what lets a rotation happen while the service keeps running.
 */
export class MasterKeyring {
  private readonly current: MasterKey;
  private readonly byId: Map<string, MasterKey>;

  constructor(currentBase64: string, previousBase64: string[] = []) {
    this.current = toMasterKey(currentBase64);
    this.byId = new Map([this.current, ...previousBase64.map(toMasterKey)].map((k) => [k.id, k]));
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  /**
   * A key of its own for one purpose (HKDF-SHA256 of the current master key),
   * for values the service signs rather than encrypts (resume links). A
   * rotation of the master key changes it: a value signed before it is not
   * made again alike (a stored hash of it still matches).
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.current.key, Buffer.alloc(0), `flowbase:${purpose}`, 32));
  }

  /** Wraps an organization data key under the current master key. */
  wrap(dataKey: Buffer, organizationId: string): { wrappedKey: string; masterKeyId: string } {
    return { wrappedKey: seal(this.current.key, dataKey, `org-key:${organizationId}`), masterKeyId: this.current.id };
  }

  unwrap(wrappedKey: string, masterKeyId: string, organizationId: string): Buffer {
    const master = this.byId.get(masterKeyId);
    if (!master) {
      throw new DecryptionError();
    }
    return open(master.key, wrappedKey, `org-key:${organizationId}`);
  }
}
