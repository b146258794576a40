import { createContext, useContext } from 'react';
import type { ApiSchema } from '../api/schemas';

/** The signed-in person as GET /session answers; its csrfToken is null only for a bearer token caller, which the console never is. */
export type Session = ApiSchema<'ConsoleSession'>;
export type Permission = Session['permissions'][number];

/** A membership just joined by accepting an invitation, with its new personal token: held in memory for one display (joined-page.tsx). */
export interface Joined {
  organizationName: string;
  role: Session['role'];
  token: string;
  /** How long the console session signed in with the token lasts, in hours (null: as long as the token). */
  sessionHours: number | null;
}

export interface SessionState {
  session: Session;
  /** Whether the role holds a permission: pages hide what the API would refuse. */
  can(permission: Permission): boolean;
  signOut(): Promise<void>;
  /** The membership this page joined, until its token display is dismissed. */
  joined?: Joined;
  /** Signs the console in to a membership just joined (session.organization is the new one) and keeps its token for one display. */
  enterJoined(session: Session, joined: Joined): void;
  /** Forgets the joined membership's token: it is not shown again. */
  forgetJoined(): void;
}

export const SessionContext = createContext<SessionState | undefined>(undefined);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in console');
  return state;
}
