import { open, seal } from './aead';
import { type OrganizationKeys } from './organization-keys';

/**
 * Encrypts secrets under their organization's data key, binding the
 * organization and the owning record (`record`, e.g. `connection:<id>`) in as
 * associated data: a ciphertext moved to another organization or record fails.
 */
export class SecretBox {
  constructor(private readonly keys: OrganizationKeys) {}

  async encrypt(organizationId: string, record: string, plaintext: string): Promise<string> {
    const key = await this.keys.get(organizationId);
    return seal(key, Buffer.from(plaintext, 'utf8'), aad(organizationId, record));
  }

  async decrypt(organizationId: string, record: string, envelope: string): Promise<string> {
    const key = await this.keys.get(organizationId);
    return open(key, envelope, aad(organizationId, record)).toString('utf8');
  }

  async encryptJson(organizationId: string, record: string, value: unknown): Promise<string> {
    return this.encrypt(organizationId, record, JSON.stringify(value));
  }

  async decryptJson<T = unknown>(organizationId: string, record: string, envelope: string): Promise<T> {
    return JSON.parse(await this.decrypt(organizationId, record, envelope)) as T;
  }
}

function aad(organizationId: string, record: string): string {
  return `org:${organizationId}|${record}`;
}
