import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Permission } from './roles';

export type TokenKind = 'personal' | 'delegated';

/** A bearer token. Only its SHA-256 hash is stored; the token itself is shown once. */
@Entity({ name: 'access_tokens' })
export class AccessToken {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The organization the token acts in, and the only one: a token belongs to one membership. */
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'token_hash', type: 'text', unique: true, select: false })
  tokenHash!: string;

  /**
   * `personal`: the user's own credential (minted by the user or an operator).
   * `delegated`: minted for the user by a more senior member, and valid only
   * while that member stays a member who outranks the user.
   */
  @Column({ type: 'text' })
  kind!: TokenKind;

  /** The member who minted a delegated token (for a personal one, null or the user). */
  @Column({ name: 'issued_by', type: 'uuid', nullable: true })
  issuedBy!: string | null;

  /** The token this one was minted with; revoking that one revokes this one too. */
  @Column({ name: 'parent_id', type: 'uuid', nullable: true })
  parentId!: string | null;

  /** First characters of the token, to tell tokens apart in lists. */
  @Column({ name: 'token_prefix', type: 'text' })
  tokenPrefix!: string;

  /**
   * The permissions the token was minted with: it acts with those of its
   * member's current role that this names (authenticate.ts). Null: all of the
   * role's. Set once, at minting.
   */
  @Column({ type: 'text', array: true, nullable: true })
  permissions!: Permission[] | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
