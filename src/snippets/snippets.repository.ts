import { type Kysely, sql } from 'kysely';
import { readBool, readCount, readTimestamp } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import { toUser } from '../users/user-row.js';
import type { Visibility } from '../visibility.js';
import type { Snippet } from './snippets.js';

export interface SnippetFilter {
  projectId?: number | null;
  authorId?: number;
  visibilities?: readonly Visibility[];
  /** Only what this user may read, personal and project snippets alike (`GET /snippets/all`). */
  readableBy?: SnippetReader;
}

/** Who reads (`GET /snippets/all`): a user, the visibilities open to it, and the projects it is a member of. */
export interface SnippetReader {
  readonly userId: number;
  readonly visibilities: readonly Visibility[];
  readonly projectIds: readonly number[];
  readonly namespaceIds: readonly number[];
}

/** Personal snippets (`project_id` null) and project snippets. */
export class SnippetsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private select() {
    return this.db
      .selectFrom('snippets as s')
      .innerJoin('users as u', 'u.id', 's.author_id')
      .selectAll('u')
      .select([
        's.id as s_id',
        's.project_id',
        's.title',
        's.file_name',
        's.description',
        's.content',
        's.visibility',
        's.repository_storage',
        's.repository_read_only',
        's.created_at as s_created_at',
        's.updated_at as s_updated_at',
      ]);
  }

  private static toSnippet(
    r: Awaited<ReturnType<ReturnType<SnippetsRepository['select']>['executeTakeFirstOrThrow']>>,
  ) {
    return {
      id: r.s_id,
      projectId: r.project_id,
      author: toUser(r),
      title: r.title,
      fileName: r.file_name,
      description: r.description,
      content: r.content,
      visibility: r.visibility as Visibility,
      repositoryStorage: r.repository_storage,
      repositoryReadOnly: readBool(r.repository_read_only),
      createdAt: readTimestamp(r.s_created_at),
      updatedAt: readTimestamp(r.s_updated_at),
    } satisfies Snippet;
  }

  async insert(
    s: {
      projectId: number | null;
      authorId: number;
      title: string;
      fileName: string;
      description: string;
      content: string;
      visibility: Visibility;
      repositoryStorage: string;
    },
    now: string,
  ): Promise<number> {
    const row = await this.db
      .insertInto('snippets')
      .values({
        project_id: s.projectId,
        author_id: s.authorId,
        title: s.title,
        file_name: s.fileName,
        description: s.description,
        content: s.content,
        visibility: s.visibility,
        repository_storage: s.repositoryStorage,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async findById(id: number): Promise<Snippet | null> {
    const r = await this.select().where('s.id', '=', id).executeTakeFirst();
    return r ? SnippetsRepository.toSnippet(r) : null;
  }

  async list(f: SnippetFilter, page: PageRequest): Promise<Paged<Snippet>> {
    let base = this.select();
    if (f.projectId === null) base = base.where('s.project_id', 'is', null);
    else if (f.projectId !== undefined) base = base.where('s.project_id', '=', f.projectId);
    if (f.authorId !== undefined) base = base.where('s.author_id', '=', f.authorId);
    if (f.visibilities)
      base = base.where('s.visibility', 'in', f.visibilities.length ? f.visibilities : ['none']);
    const r = f.readableBy;
    if (r) {
      // Personal snippets: one's own, and those of an open visibility. Project snippets: every one of a project the
      // user is a member of (directly or through its group), and in other projects it may see, the open ones.
      const open = r.visibilities.length > 0 ? r.visibilities : ['none'];
      const none = [-1];
      base = base.where((eb) =>
        eb.or([
          eb.and([
            eb('s.project_id', 'is', null),
            eb.or([eb('s.author_id', '=', r.userId), eb('s.visibility', 'in', open)]),
          ]),
          eb(
            's.project_id',
            'in',
            eb
              .selectFrom('projects as p')
              .select('p.id')
              .where((pb) =>
                pb.or([
                  pb('p.id', 'in', r.projectIds.length > 0 ? r.projectIds : none),
                  pb('p.namespace_id', 'in', r.namespaceIds.length > 0 ? r.namespaceIds : none),
                ]),
              ),
          ),
          eb.and([
            eb('s.visibility', 'in', open),
            eb(
              's.project_id',
              'in',
              eb.selectFrom('projects as p').select('p.id').where('p.visibility', 'in', open),
            ),
          ]),
          sql<boolean>`1 = 0`,
        ]),
      );
    }
    const [rows, total] = await Promise.all([
      base
        .orderBy('s.id', 'desc')
        .limit(page.perPage)
        .offset((page.page - 1) * page.perPage)
        .execute(),
      this.db
        .selectFrom(base.as('sub'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst(),
    ]);
    return {
      items: rows.map(SnippetsRepository.toSnippet),
      total: readCount(total?.n as string | number | undefined),
    };
  }

  async update(
    id: number,
    patch: Partial<{
      title: string;
      fileName: string;
      description: string;
      content: string;
      visibility: Visibility;
    }>,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('snippets')
      .set({
        ...(patch.title !== undefined && { title: patch.title }),
        ...(patch.fileName !== undefined && { file_name: patch.fileName }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.content !== undefined && { content: patch.content }),
        ...(patch.visibility !== undefined && { visibility: patch.visibility }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('snippets').where('id', '=', id).execute();
  }
}
