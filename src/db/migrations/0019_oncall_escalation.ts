import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * On-call schedules with their rotations and participants, and escalation policies with their ordered rules
 * (Premium and Ultimate, as GitLab).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);

  await withId(db.schema.createTable('oncall_schedules'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // An IANA zone name (`Europe/Berlin`): rotations' starts, ends and active hours are local times there.
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('oncall_schedules_project_iid', ['project_id', 'iid'])
    .addUniqueConstraint('oncall_schedules_project_name', ['project_id', 'name'])
    .execute();

  await withId(db.schema.createTable('oncall_rotations'), dialect)
    .addColumn('schedule_id', 'integer', (c) =>
      c.notNull().references('oncall_schedules.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('starts_at', t.timestamp, (c) => c.notNull())
    .addColumn('ends_at', t.timestamp)
    .addColumn('length', 'integer', (c) => c.notNull())
    // hours, days or weeks
    .addColumn('length_unit', 'text', (c) => c.notNull())
    // Daily active hours in the schedule's timezone ("HH:MM"), both or neither.
    .addColumn('active_period_start', 'text')
    .addColumn('active_period_end', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('oncall_rotations_schedule_name', ['schedule_id', 'name'])
    .execute();

  await withId(db.schema.createTable('oncall_participants'), dialect)
    .addColumn('rotation_id', 'integer', (c) =>
      c.notNull().references('oncall_rotations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The order of shifts in the rotation, from 0.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addUniqueConstraint('oncall_participants_rotation_position', ['rotation_id', 'position'])
    .execute();

  await withId(db.schema.createTable('escalation_policies'), dialect)
    // A project has at most one policy (as GitLab).
    .addColumn('project_id', 'integer', (c) =>
      c.notNull().unique().references('projects.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('escalation_rules'), dialect)
    .addColumn('policy_id', 'integer', (c) =>
      c.notNull().references('escalation_policies.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('elapsed_time_seconds', 'integer', (c) => c.notNull())
    // acknowledged: page while the alert is still triggered; resolved: page while it is not yet resolved.
    .addColumn('status', 'text', (c) => c.notNull())
    // The target: the people on call in a schedule, or one user (exactly one of the two).
    .addColumn('oncall_schedule_id', 'integer', (c) =>
      c.references('oncall_schedules.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addUniqueConstraint('escalation_rules_policy_position', ['policy_id', 'position'])
    .execute();
}
