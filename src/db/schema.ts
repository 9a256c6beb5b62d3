import type { ColumnType, Generated } from 'kysely';

/** Timestamps: ISO-8601 text on SQLite, timestamptz on PostgreSQL (read back as Date); written as ISO strings. */
type Timestamp = ColumnType<string | Date, string, string>;
type NullableTimestamp = ColumnType<string | Date | null, string | null, string | null>;
/** Booleans: INTEGER 0/1 on SQLite, boolean on PostgreSQL; written as 0/1 (both accept it). */
type Bool = ColumnType<number | boolean, number, number>;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  password_digest: string | null;
  admin: Bool;
  state: string;
  private_profile: Bool;
  bio: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  scopes: string;
  expires_at: string | null;
  revoked: Bool;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

export interface SessionsTable {
  id: Generated<number>;
  token_digest: string;
  csrf_token: string;
  user_id: number;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface NamespacesTable {
  id: Generated<number>;
  kind: string;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  owner_id: number | null;
  visibility: string;
  description: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace_id: number;
  name: string;
  path: string;
  description: string;
  visibility: string;
  default_branch: string;
  monitor_enabled: Bool;
  repository_storage: string;
  creator_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_activity_at: Timestamp;
}

export interface MembersTable {
  id: Generated<number>;
  source_type: string;
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: Timestamp;
}

export interface SnippetsTable {
  id: Generated<number>;
  project_id: number | null;
  author_id: number;
  title: string;
  file_name: string;
  description: string;
  content: string;
  visibility: string;
  repository_storage: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApplicationSettingsTable {
  key: string;
  value: string;
}

export interface FeatureGatesTable {
  id: Generated<number>;
  name: string;
  /** `null` for the instance-wide boolean gate; otherwise a project actor. */
  project_id: number | null;
  enabled: Bool;
  created_at: Timestamp;
}

/** The Kysely database type: one entry per table. */
export interface Database {
  users: UsersTable;
  personal_access_tokens: PersonalAccessTokensTable;
  sessions: SessionsTable;
  namespaces: NamespacesTable;
  projects: ProjectsTable;
  members: MembersTable;
  snippets: SnippetsTable;
  application_settings: ApplicationSettingsTable;
  feature_gates: FeatureGatesTable;
}
