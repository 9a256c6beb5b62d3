import { createContext, useContext } from 'react';
import type { SessionUser } from './types';

/** The signed-in user, for pages deep in the tree that act differently for administrators. */
export const SessionUserContext = createContext<SessionUser | null>(null);

/** The signed-in user (null outside the signed-in shell). */
export function useSessionUser(): SessionUser | null {
  return useContext(SessionUserContext);
}
