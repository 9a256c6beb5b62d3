import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Users, tokens, sessions, namespaces (users' and groups), projects, members, snippets, settings, feature gates. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);

  await withId(db.schema.createTable('users'), dialect)
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_digest', 'text')
    .addColumn('admin', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('private_profile', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .addColumn('bio', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX users_username_lower ON users (lower(username))`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email_lower ON users (lower(email))`.execute(db);

  await withId(db.schema.createTable('personal_access_tokens'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('personal_access_tokens_user')
    .on('personal_access_tokens')
    .column('user_id')
    .execute();

  await withId(db.schema.createTable('sessions'), dialect)
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('namespaces'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('private'))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX namespaces_full_path_lower ON namespaces (lower(full_path))`.execute(db);
  await db.schema.createIndex('namespaces_parent').on('namespaces').column('parent_id').execute();

  await withId(db.schema.createTable('projects'), dialect)
    .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('private'))
    .addColumn('default_branch', 'text', (c) => c.notNull().defaultTo('main'))
    .addColumn('monitor_enabled', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(true)))
    .addColumn('repository_storage', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_activity_at', t.timestamp, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX projects_namespace_path_lower ON projects (namespace_id, lower(path))`.execute(
    db,
  );
  await db.schema.createIndex('projects_storage').on('projects').column('repository_storage').execute();

  await withId(db.schema.createTable('members'), dialect)
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_by_id', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('members_source_user', ['source_type', 'source_id', 'user_id'])
    .execute();
  await db.schema.createIndex('members_user').on('members').column('user_id').execute();

  await withId(db.schema.createTable('snippets'), dialect)
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('repository_storage', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('application_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('feature_gates'), dialect)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('enabled', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('feature_gates_name').on('feature_gates').column('name').execute();
}
