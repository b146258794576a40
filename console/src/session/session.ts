import { createContext, useContext } from 'react';

/** The signed-in person as GET /session answers (src/auth/sessions.schemas.ts). */
export interface Session {
  /** Null only for a bearer token caller, which the console never is. */
  csrfToken: string | null;
  expiresAt: string | null;
  user: { id: string; email: string; name: string | null };
  organization: { id: string; suid: string; name: string };
  role: 'owner' | 'admin' | 'developer' | 'analyst' | 'viewer';
  permissions: string[];
}

export interface SessionState {
  session: Session;
  /** Whether the role holds a permission: pages hide what the API would refuse. */
  can(permission: string): boolean;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | undefined>(undefined);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in console');
  return state;
}
