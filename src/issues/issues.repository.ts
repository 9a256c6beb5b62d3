import type { Kysely, Selectable, Transaction } from 'kysely';
import { readNullableTimestamp, readTimestamp } from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, IssuesTable, Queryable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Issue, IssueType } from './issues.js';

function toIssue(r: Selectable<IssuesTable>): Issue {
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
  };
}

/** Issues and incidents. */
export class IssuesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts an issue under the project's next issue iid (allocated in the same transaction). */
  async insert(
    trx: Transaction<Database>,
    i: {
      projectId: number;
      title: string;
      description: string;
      issueType: IssueType;
      authorId: number | null;
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toIssue(r);
  }

  async close(trx: Queryable, projectId: number, iid: number, now: string): Promise<void> {
    await trx
      .updateTable('issues')
      .set({ state: 'closed', closed_at: now, updated_at: now })
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .where('state', '=', 'opened')
      .execute();
  }

  async find(projectId: number, iid: number): Promise<Issue | null> {
    const r = await this.db
      .selectFrom('issues')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return r ? toIssue(r) : null;
  }

  async list(
    projectId: number,
    f: { issueType?: IssueType; state?: 'opened' | 'closed' },
    page: PageRequest,
  ): Promise<Paged<Issue>> {
    let base = this.db.selectFrom('issues').where('project_id', '=', projectId);
    if (f.issueType) base = base.where('issue_type', '=', f.issueType);
    if (f.state) base = base.where('state', '=', f.state);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('iid', 'desc'), page);
    return { items: rows.map(toIssue), total };
  }
}
