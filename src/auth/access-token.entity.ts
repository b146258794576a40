import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A bearer token. Only its SHA-256 hash is stored; the token itself is shown once. */
@Entity({ name: 'access_tokens' })
export class AccessToken {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The organization the token acts in unless the caller picks another one. */
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'token_hash', type: 'text', unique: true, select: false })
  tokenHash!: string;

  /** First characters of the token, to tell tokens apart in lists. */
  /** Set when another member minted the token; such a token cannot switch organizations. */
  @Column({ name: 'issued_by', type: 'uuid', nullable: true })
  issuedBy!: string | null;

  @Column({ name: 'token_prefix', type: 'text' })
  tokenPrefix!: string;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
