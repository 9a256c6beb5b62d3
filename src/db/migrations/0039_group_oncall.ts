import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Group-level on-call: an on-call schedule and an escalation policy belong to a project or to a group (exactly one of
 * `project_id` and `group_id`). A group's policy applies to the projects below it that have none of their own. A
 * deleted group takes its schedules and policy with it.
 *
 * SQLite cannot drop a NOT NULL, so there both tables are rebuilt (SQLite's documented twelve steps: foreign keys
 * off, which migrations may do because they run outside a transaction on SQLite, a new table, the rows copied, the
 * old dropped, the new renamed, the keys checked).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    for (const table of ['oncall_schedules', 'escalation_policies'])
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN project_id DROP NOT NULL`.execute(db);
    await db.schema
      .alterTable('oncall_schedules')
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .execute();
    await db.schema
      .alterTable('escalation_policies')
      .addColumn('group_id', 'integer', (c) => c.unique().references('namespaces.id').onDelete('cascade'))
      .execute();
    await db.schema
      .alterTable('oncall_schedules')
      .addUniqueConstraint('oncall_schedules_group_iid', ['group_id', 'iid'])
      .execute();
    await db.schema
      .alterTable('oncall_schedules')
      .addUniqueConstraint('oncall_schedules_group_name', ['group_id', 'name'])
      .execute();
    for (const table of ['oncall_schedules', 'escalation_policies'])
      await db.schema
        .alterTable(table)
        .addCheckConstraint(`${table}_owner`, sql`(project_id IS NULL) <> (group_id IS NULL)`)
        .execute();
    return;
  }

  const t = columnTypes(dialect);
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await withId(db.schema.createTable('oncall_schedules_new'), dialect)
      .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('oncall_schedules_project_iid', ['project_id', 'iid'])
      .addUniqueConstraint('oncall_schedules_project_name', ['project_id', 'name'])
      .addUniqueConstraint('oncall_schedules_group_iid', ['group_id', 'iid'])
      .addUniqueConstraint('oncall_schedules_group_name', ['group_id', 'name'])
      .addCheckConstraint('oncall_schedules_owner', sql`(project_id IS NULL) <> (group_id IS NULL)`)
      .execute();
    await sql`INSERT INTO oncall_schedules_new (id, project_id, iid, name, description, timezone, created_at, updated_at)
      SELECT id, project_id, iid, name, description, timezone, created_at, updated_at FROM oncall_schedules`.execute(
      db,
    );
    await sql`DROP TABLE oncall_schedules`.execute(db);
    await sql`ALTER TABLE oncall_schedules_new RENAME TO oncall_schedules`.execute(db);

    await withId(db.schema.createTable('escalation_policies_new'), dialect)
      .addColumn('project_id', 'integer', (c) => c.unique().references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.unique().references('namespaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addColumn('repeat', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ack_timeout_minutes', 'integer')
      .addCheckConstraint('escalation_policies_owner', sql`(project_id IS NULL) <> (group_id IS NULL)`)
      .execute();
    await sql`INSERT INTO escalation_policies_new
        (id, project_id, name, description, created_at, updated_at, repeat, ack_timeout_minutes)
      SELECT id, project_id, name, description, created_at, updated_at, repeat, ack_timeout_minutes
      FROM escalation_policies`.execute(db);
    await sql`DROP TABLE escalation_policies`.execute(db);
    await sql`ALTER TABLE escalation_policies_new RENAME TO escalation_policies`.execute(db);

    const broken = await sql`PRAGMA foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error('0039_group_oncall: foreign keys broken by the rebuild');
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
