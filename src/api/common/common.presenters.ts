import type { User } from '../../users/users.js';

/** What a presenter needs besides the model: the base URL and who is looking. */
export interface View {
  readonly externalUrl: string;
  readonly viewer: User | null;
}

export const isAdmin = (v: View) => v.viewer?.admin === true;
