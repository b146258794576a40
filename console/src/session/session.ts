import { createContext, useContext } from 'react';
import type { ApiSchema } from '../api/schemas';

/** The signed-in person as GET /session answers; its csrfToken is null only for a bearer token caller, which the console never is. */
export type Session = ApiSchema<'ConsoleSession'>;
export type Permission = Session['permissions'][number];

export interface SessionState {
  session: Session;
  /** Whether the role holds a permission: pages hide what the API would refuse. */
  can(permission: Permission): boolean;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | undefined>(undefined);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in console');
  return state;
}
