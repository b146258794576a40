import type { TokenKind } from '../auth/access-token.entity';
import type { Permission, Role } from '../auth/roles';

/** Who is calling and in which organization; set by `authenticate`. */
export interface AuthContext {
  userId: string;
  tokenId: string;
  /** Whose credential the token is: minting from it never widens it (see TokensService). */
  tokenKind: TokenKind;
  tokenIssuedBy: string | null;
  tokenExpiresAt: Date | null;
  organizationId: string;
  organizationSuid: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
  /** The permissions the token was minted with (null: its role's); `permissions` is what it acts with now. */
  tokenPermissions: readonly Permission[] | null;
  /** The console session the request came through (the cookie), when it did; undefined for a bearer token. */
  session?: { id: string; expiresAt: Date };
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
    id?: string | number | object;
  }
}
