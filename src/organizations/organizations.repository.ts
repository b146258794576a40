import { DataSource, EntityManager } from 'typeorm';
import { Membership } from '../auth/membership.entity';
import type { Role } from '../auth/roles';
import { User } from '../auth/user.entity';
import { Organization } from './organization.entity';

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

  findById(id: string): Promise<Organization | null> {
    return this.db.getRepository(Organization).findOneBy({ id });
  }

  async insert(org: Partial<Organization>, manager: EntityManager): Promise<Organization> {
    await manager.insert(Organization, org);
    return manager.findOneByOrFail(Organization, { id: org.id });
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.getRepository(Organization).update({ id }, { name });
  }

  /** Organizations the user belongs to, with the user's role in each. */
  async listForUser(userId: string): Promise<Array<Organization & { role: Role }>> {
    const rows = await this.db
      .getRepository(Organization)
      .createQueryBuilder('o')
      .innerJoin(Membership, 'm', 'm.organization_id = o.id AND m.user_id = :userId', { userId })
      .addSelect('m.role', 'role')
      .orderBy('o.created_at', 'ASC')
      .getRawAndEntities();
    return rows.entities.map((o, i) => Object.assign(o, { role: rows.raw[i].role as Role }));
  }

  /** Finds the user by e-mail or creates it. */
  async findOrCreateUser(user: { id: string; email: string; name?: string | null }, manager: EntityManager): Promise<User> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(User)
      .values({ id: user.id, email: user.email, name: user.name ?? null })
      .orIgnore()
      .execute();
    return manager.findOneByOrFail(User, { email: user.email });
  }

  async listMembers(organizationId: string): Promise<MemberRow[]> {
    return this.db.query(
      `SELECT u.id AS "userId", u.email, u.name, m.role, m.created_at AS "createdAt"
         FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 ORDER BY m.created_at, u.email`,
      [organizationId],
    );
  }

  async findMember(organizationId: string, userId: string, manager: EntityManager = this.db.manager): Promise<MemberRow | undefined> {
    const rows: MemberRow[] = await manager.query(
      `SELECT u.id AS "userId", u.email, u.name, m.role, m.created_at AS "createdAt"
         FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.user_id = $2 FOR UPDATE OF m`,
      [organizationId, userId],
    );
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
    const rows = await manager.query(
      `SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner' FOR UPDATE`,
      [organizationId],
    );
    return rows.length;
  }
}
