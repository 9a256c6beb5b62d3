import type { AccessPolicy } from '../access/access.policy.js';
import type { Group } from '../namespaces/namespaces.js';
import type { User } from '../users/users.js';
import type { Project } from './projects.js';

/** The access policy over this service's users, projects and groups. */
export type Access = AccessPolicy<User, Project, Group>;
