/** The signed-in user as the session endpoint returns it. */
export interface SessionUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly is_admin: boolean;
}

/** Body of `GET/POST /-/session`. */
export interface Session {
  readonly user: SessionUser;
  readonly csrf_token: string;
}

/** The fields of a GitLab project entity that the UI reads (the API returns many more). */
export interface Project {
  readonly id: number;
  readonly name: string;
  readonly name_with_namespace: string;
  readonly path_with_namespace: string;
  readonly description: string | null;
  readonly visibility: string;
  readonly web_url: string;
  readonly last_activity_at: string | null;
  readonly monitor_access_level?: string | null;
}

/** Body of `GET /api/v4/version`. */
export interface VersionInfo {
  readonly version: string;
  readonly revision: string;
}

/** The fields of a GitLab user entity (admin view) that the admin area lists. */
export interface AdminUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: string;
  readonly is_admin: boolean;
}
