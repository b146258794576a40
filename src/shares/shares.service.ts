import type { DataSourcesRepository } from '../data-sources/data-sources.repository';
import type { DataStoresService } from '../data-stores/data-stores.service';
import type { EntityManager } from 'typeorm';
import { ROLE_PERMISSIONS, ROLES } from '../auth/roles';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors/errors';
import type { Logger } from '../logging/logger';
import { newId, newSuid } from '../ids';
import type { OrganizationsRepository } from '../organizations/organizations.repository';
import { PLAN_FEATURES, plansWith } from '../organizations/plans';
import { DataStoreShare } from './share.entity';
import { type Granter, GranterNotAllowed, MAX_ACTIVE_SHARES, type RevokedShare, ShareTaken, type SharesRepository } from './shares.repository';
import type { CreateShareBody } from './shares.schemas';

/** The roles whose members may grant shares: those with shares:admin. */
export const ROLES_THAT_SHARE = ROLES.filter((role) => ROLE_PERMISSIONS[role].includes('shares:admin'));

/** What holds a received share's alias at the recipient's side, when the alias does not reach the shared table. */
export type ShadowedBy = 'own_table' | 'earlier_share';

/** The analytics tag of a table no feed fills. */
export const CUSTOM_TAG = 'custom';

function shareError(message: string, code: string, path?: string): ValidationError {
  return new ValidationError(message, path ? [{ path, message }] : undefined, code);
}

/**
 * Read-only shares of data store tables with other organizations
 * (interface.md 4.6, 5.5). The rules that make them read-only and
 * revocable live where the data is read: data store reads resolve a
 * recipient's alias to the owner's table and refuse every write to it
 * (DataStoresService), and sources over a shared table fail once the share
 * is revoked (DataSourcesService.unreadable, used by analytics and widgets).
 */
export class SharesService {
  constructor(
    private readonly repository: SharesRepository,
    private readonly organizations: Pick<OrganizationsRepository, 'findById' | 'findByRef'>,
    private readonly dataStores: Pick<DataStoresService, 'tableExists'>,
    private readonly sources: Pick<DataSourcesRepository, 'closeShare' | 'feedTypes'>,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /** Shares a table; the share comes back with its granter, as the granted list shows it. */
  async create(organizationId: string, userId: string, body: CreateShareBody): Promise<{ share: DataStoreShare; grantedBy: Granter | null }> {
    const owner = await this.organizations.findById(organizationId);
    if (!owner) throw new NotFoundError('Organization');
    if (!PLAN_FEATURES[owner.plan].dataStoreSharing) {
      throw shareError(
        `The "${owner.plan}" plan does not include sharing data store tables; it is part of the ${plansWith('dataStoreSharing').join(' and ')} plans`,
        'plan_lacks_sharing',
      );
    }
    const recipient = await this.recipient(body);
    if (recipient.id === organizationId) throw shareError('A table cannot be shared with its own organization', 'own_organization', this.recipientPath(body));
    if (!(await this.dataStores.tableExists(organizationId, body.tableName))) {
      throw shareError(`Data store table "${body.tableName}" does not exist in this organization`, 'unknown_table', 'tableName');
    }
    if ((await this.repository.countGranted(organizationId)) >= MAX_ACTIVE_SHARES) {
      throw shareError(`An organization may have at most ${MAX_ACTIVE_SHARES} active shares; revoke one first`, 'share_limit');
    }
    // The alias names the table among the recipient's own, which always win over it (resolved where it is read, never
    // checked here): whatever the recipient holds, the answer is the same, so a share reveals nothing of its names.
    const alias = body.alias ?? body.tableName;
    const share = Object.assign(new DataStoreShare(), {
      id: newId(),
      suid: newSuid(),
      organizationId,
      ownerOrganizationId: organizationId,
      userId,
      tableName: body.tableName,
      sharedToOrganizationId: recipient.id,
      alias,
      readOnly: true,
      revokedAt: null,
    });
    try {
      const created = await this.repository.insertGranted(share, ROLES_THAT_SHARE);
      return { share: created, grantedBy: (await this.repository.granters([created])).get(userId) ?? null };
    } catch (err) {
      if (err instanceof GranterNotAllowed) throw new ForbiddenError('This action needs the shares:admin permission', 'missing_permission');
      if (!(err instanceof ShareTaken)) throw err;
      throw shareError(
        `Table "${body.tableName}" is already shared with that organization; revoke that share to share it again`,
        'already_shared',
        'tableName',
      );
    }
  }

  /** The active shares the organization granted, each with the member who granted it. */
  async listGranted(organizationId: string): Promise<Array<{ share: DataStoreShare; grantedBy: Granter | null }>> {
    const shares = await this.repository.listGranted(organizationId);
    const granters = await this.repository.granters(shares);
    return shares.map((share) => ({ share, grantedBy: (share.userId && granters.get(share.userId)) || null }));
  }

  /**
   * Received shares with what each table holds (the feed key of the owner's
   * source that fills it, else "custom") and, when the alias does not reach
   * it, what holds the alias instead: a table of the recipient's own, or an
   * earlier share under the same alias.
   */
  async listReceived(organizationId: string): Promise<Array<{ share: DataStoreShare; analyticsTag: string; shadowedBy: ShadowedBy | null }>> {
    const shares = await this.repository.listReceived(organizationId);
    const [tags, shadowed] = await Promise.all([
      this.sources.feedTypes(shares.map((s) => ({ organizationId: s.ownerOrganizationId, tableName: s.tableName }))),
      this.repository.shadowed(organizationId, shares),
    ]);
    return shares.map((share) => ({
      share,
      analyticsTag: tags.get(`${share.ownerOrganizationId}/${share.tableName}`) ?? CUSTOM_TAG,
      shadowedBy: shadowed.get(share.id) ?? null,
    }));
  }

  /**
   * Ends a share at once; the granting organization revokes, the recipient
   * may remove a share it received. The revocation commits first (every read
   * checks it), then the recipient's sources over the table are disabled and
   * emptied. If closing them fails, they stay unreadable and the failure is logged.
   */
  async revoke(organizationId: string, id: string): Promise<void> {
    const share = await this.repository.revoke(organizationId, id);
    if (!share) throw new NotFoundError('Share');
    await this.closeRevoked([share]);
  }

  /**
   * Offboarding, in the transaction that removes or demotes a member who may
   * share: the active shares they granted are revoked, unless an owner keeps
   * them, which makes that owner their granter. Revoked shares must then be
   * closed (`closeRevoked`) once the transaction has committed.
   */
  async endGrantsOf(m: EntityManager, organizationId: string, userId: string, keptBy?: string): Promise<{ revoked: RevokedShare[]; kept: number }> {
    if (keptBy) return { revoked: [], kept: await this.repository.reassignGrantedBy(m, organizationId, userId, keptBy) };
    return { revoked: await this.repository.revokeGrantedBy(m, organizationId, userId), kept: 0 };
  }

  /** Closes the recipients' sources over revoked shares; a failure is logged (the revocation stands, and reads check it). */
  async closeRevoked(shares: readonly RevokedShare[]): Promise<void> {
    for (const share of shares) {
      await this.sources.closeShare(share).catch((err: unknown) => {
        this.logger.error({ shareId: share.id, err: err instanceof Error ? err.message : String(err) }, 'closing the sources of a revoked share failed');
      });
    }
  }

  /** Revokes every share the organization granted (its plan no longer includes sharing); how many. */
  async revokeAllGranted(organizationId: string): Promise<number> {
    const shares = await this.repository.listGranted(organizationId);
    for (const share of shares) await this.revoke(organizationId, share.id);
    return shares.length;
  }

  private async recipient(body: CreateShareBody) {
    const { sharedToOrganizationId: id, sharedToOrganizationSuid: suid } = body;
    if (!id && !suid)
      throw shareError('Name the recipient with sharedToOrganizationId or sharedToOrganizationSuid', 'recipient_required', 'sharedToOrganizationId');
    const found = await this.organizations.findByRef((id ?? suid)!);
    // findByRef reads a UUID as an id: a suid field holding one must still match a suid.
    if (!found || (id && found.id !== id) || (suid && found.suid !== suid)) {
      throw shareError(
        id && suid ? 'sharedToOrganizationId and sharedToOrganizationSuid name different organizations' : 'No organization has that id or suid',
        'unknown_recipient',
        this.recipientPath(body),
      );
    }
    return found;
  }

  private recipientPath(body: CreateShareBody): string {
    return body.sharedToOrganizationId ? 'sharedToOrganizationId' : 'sharedToOrganizationSuid';
  }
}
