import type { Permission, Role } from '../auth/roles';

/** Who is calling and in which organization; set by `authenticate`. */
export interface AuthContext {
  userId: string;
  tokenId: string;
  organizationId: string;
  organizationSuid: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
    id?: string | number | object;
  }
}
