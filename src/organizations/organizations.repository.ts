import { type DataSource, type EntityManager } from 'typeorm';
import { Membership } from '../auth/membership.entity';
import type { Role } from '../auth/roles';
import type { Page } from '../http/pagination';
import { User } from '../auth/user.entity';
import { Organization, type PlanTier } from './organization.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MEMBER_SELECT = `SELECT u.id AS "userId", u.email, u.name, m.role, m.created_at AS "createdAt" FROM memberships m JOIN users u ON u.id = m.user_id`;

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: Date;
}

export class OrganizationsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<Organization | null> {
    return manager.findOneBy(Organization, { id });
  }

  async insert(org: Partial<Organization>, manager: EntityManager): Promise<Organization> {
    await manager.insert(Organization, org);
    return manager.findOneByOrFail(Organization, { id: org.id });
  }

  async setPlan(id: string, plan: PlanTier): Promise<void> {
    await this.db.getRepository(Organization).update({ id }, { plan });
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.getRepository(Organization).update({ id }, { name });
  }

  /** The organization named by its id or its suid. */
  findByRef(ref: string): Promise<Organization | null> {
    const column = UUID.test(ref) ? 'id' : 'suid';
    return this.db.getRepository(Organization).findOneBy({ [column]: ref });
  }

  /** Finds the user by e-mail or creates it (operators creating an organization for an address). */
  async findOrCreateUser(user: { id: string; email: string; name?: string | null }, manager: EntityManager): Promise<User> {
    await this.insertUser(user, manager);
    return manager.findOneByOrFail(User, { email: user.email });
  }

  /** Creates the user; false when the e-mail already belongs to someone. */
  async insertUser(user: { id: string; email: string; name?: string | null }, manager: EntityManager): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(User)
      .values({ id: user.id, email: user.email, name: user.name ?? null })
      .orIgnore()
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  findUserByEmail(email: string, manager: EntityManager = this.db.manager): Promise<User | null> {
    return manager.findOneBy(User, { email });
  }

  findUserById(id: string, manager: EntityManager = this.db.manager): Promise<User | null> {
    return manager.findOneBy(User, { id });
  }

  async countMemberships(userId: string, manager: EntityManager = this.db.manager): Promise<number> {
    const rows: Array<{ n: number }> = await manager.query(`SELECT count(*)::int AS n FROM memberships WHERE user_id = $1`, [userId]);
    return rows[0].n;
  }

  async roleOf(organizationId: string, userId: string): Promise<Role | undefined> {
    const rows: Array<{ role: Role }> = await this.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
      organizationId,
      userId,
    ]);
    return rows[0]?.role;
  }

  /** A page of the members, oldest first, and how many there are. */
  async listMembers(organizationId: string, page: Page): Promise<{ total: number; data: MemberRow[] }> {
    const [data, [{ total }]] = await Promise.all([
      this.db.query(`${MEMBER_SELECT} WHERE m.organization_id = $1 ORDER BY m.created_at, u.email LIMIT $2 OFFSET $3`, [
        organizationId,
        page.limit,
        page.offset,
      ]),
      this.db.query(`SELECT count(*)::int AS total FROM memberships WHERE organization_id = $1`, [organizationId]),
    ]);
    return { total, data };
  }

  /** The member with this e-mail, if any (an invitation to a member is refused). */
  async findMemberByEmail(organizationId: string, email: string, manager: EntityManager = this.db.manager): Promise<MemberRow | undefined> {
    const rows: MemberRow[] = await manager.query(`${MEMBER_SELECT} WHERE m.organization_id = $1 AND u.email = $2`, [organizationId, email]);
    return rows[0];
  }

  async findMember(organizationId: string, userId: string, manager: EntityManager = this.db.manager): Promise<MemberRow | undefined> {
    const rows: MemberRow[] = await manager.query(`${MEMBER_SELECT} WHERE m.organization_id = $1 AND m.user_id = $2 FOR UPDATE OF m`, [organizationId, userId]);
    return rows[0];
  }

  /** Inserts the membership; false if the user is already a member. */
  async addMember(organizationId: string, userId: string, role: Role, manager: EntityManager): Promise<boolean> {
    const rows = await manager.query(
      `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING user_id`,
      [organizationId, userId, role],
    );
    return rows.length > 0;
  }

  async setRole(organizationId: string, userId: string, role: Role, manager: EntityManager): Promise<void> {
    await manager.update(Membership, { organizationId, userId }, { role });
  }

  async removeMember(organizationId: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.delete(Membership, { organizationId, userId });
  }

  /** Counts owners while locking their rows, so two demotions cannot both pass the last-owner check. */
  async lockOwners(organizationId: string, manager: EntityManager): Promise<number> {
    const rows = await manager.query(`SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner' FOR UPDATE`, [organizationId]);
    return rows.length;
  }
}
