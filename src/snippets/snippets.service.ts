import type { Clock } from '../clock.js';
import { forbidden, invalidFields, notFound, readOnlyError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { RepositoryLifecycle } from '../projects/projects.js';
import type { StoragePicker } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { User } from '../users/users.js';
import { assertVisibilityAllowed, type Visibility } from '../visibility.js';
import { snippetFileNameProblem } from './snippet-file-name.js';
import type { Snippet } from './snippets.js';
import type { SnippetsRepository } from './snippets.repository.js';

export interface SnippetInput {
  title?: string;
  fileName?: string;
  description?: string;
  content?: string;
  visibility?: Visibility;
}

/** Personal and project snippets. */
export class SnippetsService {
  constructor(
    private readonly snippets: SnippetsRepository,
    private readonly access: Access,
    private readonly settings: SettingsService,
    private readonly pickStorage: StoragePicker,
    private readonly repos: RepositoryLifecycle,
    private readonly permissions: Pick<PermissionsService, 'projectScope'>,
    private readonly clock: Clock,
  ) {}

  /** A snippet the caller may read; for project snippets, `projectIdOrPath` must name its project. */
  async find(
    actor: User | null,
    id: number,
    projectIdOrPath?: string,
  ): Promise<{ snippet: Snippet; level: number }> {
    const snippet = await this.snippets.findById(id);
    if (!snippet) throw notFound('Snippet');
    if (projectIdOrPath !== undefined) {
      const { project, level } = await this.access.project(actor, projectIdOrPath);
      if (snippet.projectId !== project.id) throw notFound('Snippet');
      this.access.snippet(actor, { visibility: snippet.visibility, authorId: snippet.author.id }, level);
      return { snippet, level };
    }
    if (snippet.projectId !== null) {
      return this.find(actor, id, String(snippet.projectId));
    }
    const mine = this.access.isAdmin(actor) || (actor !== null && snippet.author.id === actor.id);
    this.access.snippet(actor, { visibility: snippet.visibility, authorId: snippet.author.id }, 0);
    return { snippet, level: mine ? AccessLevel.Owner : 0 };
  }

  /** The caller's own personal snippets. */
  async listOwn(actor: User | null, page: PageRequest): Promise<Paged<Snippet>> {
    const user = this.access.signedIn(actor);
    return this.snippets.list({ authorId: user.id, projectId: null }, page);
  }

  /**
   * `GET /snippets/all`: every snippet the caller may read, personal and project ones (GitLab's SnippetsFinder with
   * `all_available`); admins read all. Newest first, as the other lists.
   */
  async listAll(caller: User | null, page: PageRequest): Promise<Paged<Snippet>> {
    const actor = this.access.signedIn(caller);
    const scope = await this.permissions.projectScope(actor);
    if (scope === null) return this.snippets.list({}, page);
    return this.snippets.list({ readableBy: { userId: actor.id, ...scope } }, page);
  }

  listPublic(page: PageRequest): Promise<Paged<Snippet>> {
    return this.snippets.list({ projectId: null, visibilities: ['public'] }, page);
  }

  async listProject(actor: User | null, projectIdOrPath: string, page: PageRequest): Promise<Paged<Snippet>> {
    const { project, level } = await this.access.project(actor, projectIdOrPath);
    // Which snippets the list may show: those of every visibility for members (and admins), as `snippet()`.
    const visibilities: Visibility[] =
      this.access.isAdmin(actor) || level >= AccessLevel.Guest
        ? ['private', 'internal', 'public']
        : actor
          ? ['internal', 'public']
          : ['public'];
    return this.snippets.list({ projectId: project.id, visibilities }, page);
  }

  private validate(input: SnippetInput, creating: boolean) {
    const errors: Record<string, string[]> = {};
    if (creating && !input.title?.trim()) errors.title = ["can't be blank"];
    if (input.title !== undefined && input.title.trim() === '') errors.title = ["can't be blank"];
    if (creating && (input.content === undefined || input.content === ''))
      errors.content = ["can't be blank"];
    const nameProblem = input.fileName === undefined ? null : snippetFileNameProblem(input.fileName);
    if (nameProblem) errors.file_name = [nameProblem];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  }

  async create(caller: User | null, input: SnippetInput, projectIdOrPath?: string): Promise<Snippet> {
    const actor = this.access.signedIn(caller);
    this.validate(input, true);
    let projectId: number | null = null;
    if (projectIdOrPath !== undefined) {
      const { project } = await this.access.project(actor, projectIdOrPath, AccessLevel.Reporter);
      projectId = project.id;
    }
    const settings = await this.settings.get();
    const visibility = input.visibility ?? settings.default_snippet_visibility;
    assertVisibilityAllowed(visibility, settings.restricted_visibility_levels, this.access.isAdmin(actor));
    const repositoryStorage = await this.pickStorage();
    const fileName = input.fileName ?? 'snippet.txt';
    const id = await this.snippets.insert(
      {
        projectId,
        authorId: actor.id,
        title: input.title!,
        fileName,
        description: input.description ?? '',
        content: input.content!,
        visibility,
        repositoryStorage,
      },
      this.clock.now().toISOString(),
    );
    try {
      await this.repos.create('snippet', id, repositoryStorage);
      await this.repos.commitSnippet(
        id,
        repositoryStorage,
        { name: fileName, content: input.content! },
        actor,
      );
    } catch (err) {
      await this.snippets.delete(id);
      throw err;
    }
    return (await this.snippets.findById(id))!;
  }

  private async findWritable(caller: User | null, id: number, projectIdOrPath?: string): Promise<Snippet> {
    const actor = this.access.signedIn(caller);
    const { snippet, level } = await this.find(actor, id, projectIdOrPath);
    const allowed =
      this.access.isAdmin(actor) ||
      snippet.author.id === actor.id ||
      (snippet.projectId !== null && level >= AccessLevel.Maintainer);
    if (!allowed) throw forbidden();
    return snippet;
  }

  async update(
    actor: User | null,
    id: number,
    input: SnippetInput,
    projectIdOrPath?: string,
  ): Promise<Snippet> {
    const snippet = await this.findWritable(actor, id, projectIdOrPath);
    this.validate(input, false);
    if (input.content === '') throw invalidFields({ content: ["can't be blank"] });
    if (input.visibility !== undefined && input.visibility !== snippet.visibility) {
      const restricted = (await this.settings.get()).restricted_visibility_levels;
      assertVisibilityAllowed(input.visibility, restricted, this.access.isAdmin(actor));
    }
    if (snippet.repositoryReadOnly) throw readOnlyError();
    if (input.content !== undefined || input.fileName !== undefined) {
      const file = { name: input.fileName ?? snippet.fileName, content: input.content ?? snippet.content };
      await this.repos.commitSnippet(snippet.id, snippet.repositoryStorage, file, actor!);
    }
    await this.snippets.update(snippet.id, input, this.clock.now().toISOString());
    return (await this.snippets.findById(snippet.id))!;
  }

  async delete(actor: User | null, id: number, projectIdOrPath?: string): Promise<void> {
    const snippet = await this.findWritable(actor, id, projectIdOrPath);
    if (snippet.repositoryReadOnly) throw readOnlyError();
    await this.snippets.delete(snippet.id);
    await this.repos.remove('snippet', snippet.id, snippet.repositoryStorage);
  }
}
