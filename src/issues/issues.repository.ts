import { type ExpressionBuilder, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { readNullableTimestamp, readTimestamp } from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, IncidentTimelineEventsTable, IssuesTable, Queryable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type {
  EscalationStatus,
  Issue,
  IssueFilter,
  IssueSeverity,
  IssueType,
  TimelineAction,
  TimelineEvent,
  TimelineEventTag,
} from './issues.js';

function toIssue(
  r: Selectable<IssuesTable>,
  assigneeIds: readonly number[],
  labels: readonly string[],
): Issue {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
    title: r.title,
    description: r.description,
    issueType: r.issue_type as IssueType,
    state: r.state === 'closed' ? 'closed' : 'opened',
    authorId: r.author_id,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
    closedAt: readNullableTimestamp(r.closed_at),
    closedById: r.closed_by_id,
    severity: r.severity as IssueSeverity,
    escalationStatus: r.escalation_status as EscalationStatus | null,
    assigneeIds,
    labels,
    escalationPolicyId: r.escalation_policy_id ?? null,
  };
}

/** `%` and `_` are literal in a search (escaped for LIKE with `\`). */
const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** What an update may change on an issue's row. */
export interface IssuePatch {
  readonly title?: string;
  readonly description?: string;
  readonly severity?: IssueSeverity;
  readonly escalationStatus?: EscalationStatus;
  readonly escalationPolicyId?: number;
  readonly close?: { readonly byId: number | null };
  readonly reopen?: true;
}

/** Issues and incidents, their assignees and labels, and the incident timeline. */
export class IssuesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** The issues of rows, with their assignees and labels (two queries for the lot). */
  private async hydrate(q: Queryable, rows: readonly Selectable<IssuesTable>[]): Promise<Issue[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [assignees, labels] = await Promise.all([
      q
        .selectFrom('issue_assignees')
        .select(['issue_id', 'user_id'])
        .where('issue_id', 'in', ids)
        .orderBy('user_id')
        .execute(),
      q
        .selectFrom('issue_labels')
        .select(['issue_id', 'name'])
        .where('issue_id', 'in', ids)
        .orderBy('name')
        .execute(),
    ]);
    const group = <T>(list: readonly { issue_id: number }[], pick: (x: never) => T) => {
      const m = new Map<number, T[]>();
      for (const x of list) m.set(x.issue_id, [...(m.get(x.issue_id) ?? []), pick(x as never)]);
      return m;
    };
    const a = group(assignees, (x: { user_id: number }) => x.user_id);
    const l = group(labels, (x: { name: string }) => x.name);
    return rows.map((r) => toIssue(r, a.get(r.id) ?? [], l.get(r.id) ?? []));
  }

  /** Inserts an issue under the project's next issue iid (allocated in the same transaction). */
  async insert(
    trx: Transaction<Database>,
    i: {
      projectId: number;
      title: string;
      description: string;
      issueType: IssueType;
      authorId: number | null;
      severity?: IssueSeverity;
      assigneeIds?: readonly number[];
      labels?: readonly string[];
    },
    now: string,
  ): Promise<Issue> {
    const r = await trx
      .insertInto('issues')
      .values({
        project_id: i.projectId,
        iid: await nextIid(trx, i.projectId, 'issues'),
        title: i.title,
        description: i.description,
        issue_type: i.issueType,
        state: 'opened',
        author_id: i.authorId,
        created_at: now,
        updated_at: now,
        closed_at: null,
        severity: i.severity ?? 'unknown',
        escalation_status: i.issueType === 'incident' ? 'triggered' : null,
        closed_by_id: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (i.assigneeIds?.length) await this.setAssignees(trx, r.id, i.assigneeIds);
    if (i.labels?.length) await this.setLabels(trx, r.id, i.labels);
    return (await this.hydrate(trx, [r]))[0]!;
  }

  async find(projectId: number, iid: number, q: Queryable = this.db): Promise<Issue | null> {
    const r = await q
      .selectFrom('issues')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return r ? ((await this.hydrate(q, [r]))[0] ?? null) : null;
  }

  async findById(id: number, q: Queryable = this.db): Promise<Issue | null> {
    const r = await q.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? ((await this.hydrate(q, [r]))[0] ?? null) : null;
  }

  /**
   * Locks the issue's row until the transaction ends (a no-op update: a row lock on PostgreSQL, the write lock on
   * SQLite), so that two changes to one issue see each other's result and write their notes once.
   */
  async lock(trx: Queryable, id: number): Promise<void> {
    await trx.updateTable('issues').set({ id: sql`id` }).where('id', '=', id).execute();
  }

  async update(trx: Queryable, id: number, p: IssuePatch, now: string): Promise<void> {
    await trx
      .updateTable('issues')
      .set({
        updated_at: now,
        ...(p.title !== undefined && { title: p.title }),
        ...(p.description !== undefined && { description: p.description }),
        ...(p.severity !== undefined && { severity: p.severity }),
        ...(p.escalationStatus !== undefined && { escalation_status: p.escalationStatus }),
        ...(p.escalationPolicyId !== undefined && { escalation_policy_id: p.escalationPolicyId }),
        ...(p.close && { state: 'closed', closed_at: now, closed_by_id: p.close.byId }),
        ...(p.reopen && { state: 'opened', closed_at: null, closed_by_id: null }),
      })
      .where('id', '=', id)
      .execute();
  }

  /** The names of escalation policies by id (an incident's policy, as the API shows it). */
  async policyNames(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('escalation_policies')
      .select(['id', 'name'])
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async setAssignees(trx: Queryable, id: number, userIds: readonly number[]): Promise<void> {
    await trx.deleteFrom('issue_assignees').where('issue_id', '=', id).execute();
    if (userIds.length > 0)
      await trx
        .insertInto('issue_assignees')
        .values(userIds.map((user_id) => ({ issue_id: id, user_id })))
        .execute();
  }

  async setLabels(trx: Queryable, id: number, names: readonly string[]): Promise<void> {
    await trx.deleteFrom('issue_labels').where('issue_id', '=', id).execute();
    if (names.length > 0)
      await trx
        .insertInto('issue_labels')
        .values(names.map((name) => ({ issue_id: id, name })))
        .execute();
  }

  async delete(trx: Queryable, id: number): Promise<void> {
    await trx.deleteFrom('issues').where('id', '=', id).execute();
  }

  /** The projects that have issues authored by, or assigned to, a user (or any issues: neither given). */
  async projectIdsWithIssues(by: { authorId?: number; assigneeId?: number }): Promise<number[]> {
    let q = this.db.selectFrom('issues').select('project_id').distinct();
    if (by.authorId !== undefined) q = q.where('author_id', '=', by.authorId);
    if (by.assigneeId !== undefined) {
      const userId = by.assigneeId;
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('issue_assignees as ia')
            .select('ia.user_id')
            .whereRef('ia.issue_id', '=', 'issues.id')
            .where('ia.user_id', '=', userId),
        ),
      );
    }
    return (await q.execute()).map((r) => r.project_id);
  }

  /** Issues of some projects (one, or those a user may read) that match the filter, a page of them. */
  async list(
    scope: { projectIds: readonly number[] },
    f: IssueFilter,
    page: PageRequest,
  ): Promise<Paged<Issue>> {
    if (scope.projectIds.length === 0) return { items: [], total: 0 };
    let base = this.db.selectFrom('issues').where('project_id', 'in', scope.projectIds);
    if (f.issueType) base = base.where('issue_type', '=', f.issueType);
    if (f.state) base = base.where('state', '=', f.state);
    if (f.authorId !== undefined) base = base.where('author_id', '=', f.authorId);
    if (f.severity) base = base.where('severity', '=', f.severity);
    if (f.search) {
      const p = likePattern(f.search);
      base = base.where(
        (eb) =>
          sql<boolean>`(lower(${eb.ref('title')}) like ${p} escape '\\' or lower(${eb.ref('description')}) like ${p} escape '\\')`,
      );
    }
    const assigned = (eb: ExpressionBuilder<Database, 'issues'>) =>
      eb.exists(
        eb.selectFrom('issue_assignees as ia').select('ia.user_id').whereRef('ia.issue_id', '=', 'issues.id'),
      );
    if (f.assigneeId === 'none') base = base.where((eb) => eb.not(assigned(eb)));
    else if (f.assigneeId === 'any') base = base.where((eb) => assigned(eb));
    else if (f.assigneeId !== undefined) {
      const userId = f.assigneeId;
      base = base.where((eb) =>
        eb.exists(
          eb
            .selectFrom('issue_assignees as ia')
            .select('ia.user_id')
            .whereRef('ia.issue_id', '=', 'issues.id')
            .where('ia.user_id', '=', userId),
        ),
      );
    }
    const labelled = (eb: ExpressionBuilder<Database, 'issues'>, name?: string) => {
      let q = eb.selectFrom('issue_labels as il').select('il.name').whereRef('il.issue_id', '=', 'issues.id');
      if (name !== undefined) q = q.where('il.name', '=', name);
      return eb.exists(q);
    };
    if (f.labels === 'none') base = base.where((eb) => eb.not(labelled(eb)));
    else if (f.labels === 'any') base = base.where((eb) => labelled(eb));
    else for (const name of f.labels ?? []) base = base.where((eb) => labelled(eb, name));
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(f.orderBy, f.sort).orderBy('id', f.sort),
      page,
      this.db,
    );
    return { items: await this.hydrate(this.db, rows), total };
  }

  // The incident timeline

  private async eventTags(q: Queryable, ids: readonly number[]): Promise<Map<number, TimelineEventTag[]>> {
    const m = new Map<number, TimelineEventTag[]>();
    if (ids.length === 0) return m;
    const rows = await q
      .selectFrom('incident_timeline_event_tag_links as l')
      .innerJoin('incident_timeline_event_tags as t', 't.id', 'l.tag_id')
      .select(['l.timeline_event_id', 't.id', 't.project_id', 't.name'])
      .where('l.timeline_event_id', 'in', ids)
      .orderBy('t.id')
      .execute();
    for (const r of rows)
      m.set(r.timeline_event_id, [
        ...(m.get(r.timeline_event_id) ?? []),
        { id: r.id, projectId: r.project_id, name: r.name },
      ]);
    return m;
  }

  private async toEvents(
    q: Queryable,
    rows: readonly Selectable<IncidentTimelineEventsTable>[],
  ): Promise<TimelineEvent[]> {
    const tags = await this.eventTags(
      q,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      id: r.id,
      projectId: r.project_id,
      issueId: r.issue_id,
      authorId: r.author_id,
      updatedById: r.updated_by_id,
      promotedFromNoteId: r.promoted_from_note_id,
      note: r.note,
      action: r.action as TimelineAction,
      occurredAt: readTimestamp(r.occurred_at),
      createdAt: readTimestamp(r.created_at),
      updatedAt: readTimestamp(r.updated_at),
      tags: tags.get(r.id) ?? [],
    }));
  }

  async insertEvent(
    trx: Queryable,
    e: {
      projectId: number;
      issueId: number;
      authorId: number | null;
      note: string;
      action: TimelineAction;
      occurredAt: string;
      promotedFromNoteId?: number | null;
      tagIds?: readonly number[];
    },
    now: string,
  ): Promise<TimelineEvent> {
    const r = await trx
      .insertInto('incident_timeline_events')
      .values({
        project_id: e.projectId,
        issue_id: e.issueId,
        author_id: e.authorId,
        updated_by_id: null,
        promoted_from_note_id: e.promotedFromNoteId ?? null,
        note: e.note,
        action: e.action,
        occurred_at: e.occurredAt,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (e.tagIds?.length) await this.setEventTags(trx, r.id, e.tagIds);
    return (await this.toEvents(trx, [r]))[0]!;
  }

  /** An incident's timeline in time order (ties: in the order written). */
  async events(issueId: number): Promise<TimelineEvent[]> {
    const rows = await this.db
      .selectFrom('incident_timeline_events')
      .selectAll()
      .where('issue_id', '=', issueId)
      .orderBy('occurred_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return this.toEvents(this.db, rows);
  }

  async findEvent(issueId: number, id: number, q: Queryable = this.db): Promise<TimelineEvent | null> {
    const r = await q
      .selectFrom('incident_timeline_events')
      .selectAll()
      .where('issue_id', '=', issueId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? ((await this.toEvents(q, [r]))[0] ?? null) : null;
  }

  async updateEvent(
    trx: Queryable,
    id: number,
    p: { note?: string; occurredAt?: string; updatedById: number; tagIds?: readonly number[] },
    now: string,
  ): Promise<void> {
    await trx
      .updateTable('incident_timeline_events')
      .set({
        updated_at: now,
        updated_by_id: p.updatedById,
        ...(p.note !== undefined && { note: p.note }),
        ...(p.occurredAt !== undefined && { occurred_at: p.occurredAt }),
      })
      .where('id', '=', id)
      .execute();
    if (p.tagIds) await this.setEventTags(trx, id, p.tagIds);
  }

  async deleteEvent(trx: Queryable, id: number): Promise<void> {
    await trx.deleteFrom('incident_timeline_events').where('id', '=', id).execute();
  }

  private async setEventTags(trx: Queryable, eventId: number, tagIds: readonly number[]): Promise<void> {
    await trx
      .deleteFrom('incident_timeline_event_tag_links')
      .where('timeline_event_id', '=', eventId)
      .execute();
    if (tagIds.length > 0)
      await trx
        .insertInto('incident_timeline_event_tag_links')
        .values([...new Set(tagIds)].map((tag_id) => ({ timeline_event_id: eventId, tag_id })))
        .execute();
  }

  async tags(projectId: number, q: Queryable = this.db): Promise<TimelineEventTag[]> {
    const rows = await q
      .selectFrom('incident_timeline_event_tags')
      .select(['id', 'project_id', 'name'])
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, projectId: r.project_id, name: r.name }));
  }

  /** Adds a tag; null when the project has one of that name (any case). */
  async insertTag(
    trx: Queryable,
    projectId: number,
    name: string,
    now: string,
  ): Promise<TimelineEventTag | null> {
    const r = await trx
      .insertInto('incident_timeline_event_tags')
      .values({ project_id: projectId, name, lower_name: name.toLowerCase(), created_at: now })
      .onConflict((oc) => oc.columns(['project_id', 'lower_name']).doNothing())
      .returning(['id', 'project_id', 'name'])
      .executeTakeFirst();
    return r ? { id: r.id, projectId: r.project_id, name: r.name } : null;
  }
}
