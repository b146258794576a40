import type { SecretBox } from '../crypto/secret-box';
import { ConflictError, DuplicateNameError, NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import { Connection } from './connection.entity';
import { type ConnectionsRepository } from './connections.repository';
import type { CreateConnectionInput, UpdateConnectionInput } from './connections.schemas';
import { type ConnectionTypeCatalog } from './types/catalog';

/** The encryption record reference: binds a config ciphertext to its connection. */
const recordRef = (id: string) => `connection:${id}`;

export class ConnectionsService {
  constructor(
    private readonly repo: ConnectionsRepository,
    private readonly catalog: ConnectionTypeCatalog,
    private readonly box: SecretBox,
  ) {}

  list(organizationId: string, page: Page) {
    return this.repo.list(organizationId, page);
  }

  /** The connection, or null when the organization has none with this id. */
  find(organizationId: string, id: string): Promise<Connection | null> {
    return this.repo.findById(organizationId, id);
  }

  async get(organizationId: string, id: string): Promise<Connection> {
    const connection = await this.repo.findById(organizationId, id);
    if (!connection) throw new NotFoundError('Connection');
    return connection;
  }

  async create(organizationId: string, userId: string, input: CreateConnectionInput): Promise<Connection> {
    if (!this.catalog.has(input.type)) {
      throw new ValidationError(`Unknown connection type "${input.type}"`, [{ path: 'type', message: 'Unknown connection type' }], 'unknown_connection_type');
    }
    const checked = this.checkConfig(input.type, input.config);
    await this.assertNameFree(organizationId, input.name);
    const id = newId();
    const configEncrypted = await this.box.encryptJson(organizationId, recordRef(id), checked.config);
    return this.repo.insert(
      Object.assign(new Connection(), {
        id,
        suid: newSuid(),
        organizationId,
        userId,
        name: input.name,
        type: input.type,
        variant: checked.variant,
        configEncrypted,
        metadata: input.metadata ?? {},
        settings: input.settings ?? {},
      }),
    );
  }

  /**
   * PATCH: a given config replaces the whole config (omitted fields are
   * dropped), unless `keepSecrets`: then write-only fields left out keep their
   * current value (ConnectionTypeCatalog.keepSecrets). A kept secret is read
   * and the result written by compare-and-swap on the stored ciphertext, so a
   * token refresh stored in between is kept too, never overwritten with the
   * value read before it. Name and config change in one statement or not at all.
   */
  async update(organizationId: string, id: string, input: UpdateConnectionInput): Promise<Connection> {
    for (let attempt = 1; ; attempt++) {
      const existing = await this.get(organizationId, id);
      const changes: Partial<Connection> = {};
      if (input.config !== undefined) {
        const next =
          input.keepSecrets && isPlainObject(input.config)
            ? this.catalog.keepSecrets(existing.type, await this.configOf(existing), input.config)
            : input.config;
        const checked = this.checkConfig(existing.type, next);
        changes.configEncrypted = await this.box.encryptJson(organizationId, recordRef(id), checked.config);
        changes.variant = checked.variant;
      }
      if (input.name !== undefined && input.name !== existing.name) {
        await this.assertNameFree(organizationId, input.name);
        changes.name = input.name;
      }
      if (input.metadata !== undefined) changes.metadata = input.metadata;
      if (input.settings !== undefined) changes.settings = input.settings;
      if (Object.keys(changes).length === 0) return existing;
      if (!input.keepSecrets) {
        const updated = await this.repo.update(organizationId, id, changes);
        if (!updated) throw new NotFoundError('Connection');
        return updated;
      }
      const updated = await this.repo.updateIfConfigIs(organizationId, id, existing.configEncrypted, changes);
      if (updated) return updated;
      // The config changed under us (a token refresh, another edit): merge again with what is stored now.
      if (attempt === 3) throw new ConflictError('The connection kept changing while it was saved; try again', 'connection_changed');
    }
  }

  async delete(organizationId: string, id: string): Promise<Connection> {
    const deleted = await this.repo.delete(organizationId, id);
    if (!deleted) throw new NotFoundError('Connection');
    return deleted;
  }

  /** The decrypted config. Plaintext: callers must not log or store it. */
  async decryptedConfig(organizationId: string, id: string): Promise<Record<string, unknown>> {
    return this.configOf(await this.get(organizationId, id));
  }

  /** Decrypts a loaded connection's config. Plaintext: callers must not log or store it. */
  configOf(connection: Connection): Promise<Record<string, unknown>> {
    return this.box.decryptJson(connection.organizationId, recordRef(connection.id), connection.configEncrypted);
  }

  /** The config without its secrets (what an edit form may show), and which secrets are set. Never a secret. */
  async redactedConfig(organizationId: string, id: string) {
    const connection = await this.get(organizationId, id);
    return { type: connection.type, variant: connection.variant, ...this.catalog.redact(connection.type, await this.configOf(connection)) };
  }

  /** Encrypts a config for this connection (bound to its organization and id), for a caller that stores it itself. */
  sealConfig(connection: Pick<Connection, 'organizationId' | 'id'>, config: Record<string, unknown>): Promise<string> {
    return this.box.encryptJson(connection.organizationId, recordRef(connection.id), config);
  }

  /** Resolves a connection by name for a running step; the decrypted config stays in memory. */
  async resolveByName(organizationId: string, name: string): Promise<{ connection: Connection; config: Record<string, unknown> } | undefined> {
    const connection = await this.repo.findByName(organizationId, name);
    if (!connection) return undefined;
    return { connection, config: await this.configOf(connection) };
  }

  /** The organization's connections of one type (configs still encrypted), oldest first, at most `limit`. */
  listByType(organizationId: string, type: string, limit: number): Promise<Connection[]> {
    return this.repo.findByType(organizationId, type, limit);
  }

  private checkConfig(type: string, config: unknown) {
    const checked = this.catalog.check(type, config);
    if (!checked.ok) {
      throw new ValidationError(`Config does not match the schema of type "${type}"`, checked.issues, 'config_mismatch');
    }
    return checked;
  }

  /** Fails before encrypting; the repository's unique index still decides when two requests race. */
  private async assertNameFree(organizationId: string, name: string): Promise<void> {
    if (await this.repo.findByName(organizationId, name)) throw new DuplicateNameError('connection', name);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
