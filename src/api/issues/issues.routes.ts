import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { pageCommands } from '../../escalation/escalation.js';
import type { IssueSeverity } from '../../issues/issues.js';
import { Literals } from '../common/common.entities.js';
import { noteRoutes } from '../notes/notes.routes.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });
const IidParams = Type.Object({ id: Type.String(), issue_iid: Type.Integer() });
const EventParams = Type.Object({ ...IidParams.properties, event_id: Type.Integer() });

/** GitLab takes label names comma-separated (`a,b`) or as an array (`labels[]=a`). */
const Labels = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 100 })]));
const labelList = (v: string | string[] | undefined) =>
  v === undefined ? undefined : (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
const AssigneeIds = Type.Optional(Type.Array(Type.Integer(), { maxItems: 100 }));
/** The service checks severity (any case of GitLab's values) and lengths, for GitLab's 400 bodies. */
const Severity = Type.Optional(
  Type.String({ description: 'UNKNOWN, LOW, MEDIUM, HIGH or CRITICAL (incidents)' }),
);
const EscalationStatus = Type.Optional(Literals(['triggered', 'acknowledged', 'resolved'] as const));
const IssueType = Type.Optional(Literals(['issue', 'incident'] as const));

/** An incident list's `severity` filter: GitLab's values, upper or lower case. */
const LIST_SEVERITIES = [
  ...(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const),
  ...(['unknown', 'low', 'medium', 'high', 'critical'] as const satisfies readonly IssueSeverity[]),
] as const;

/** GitLab's issue list filters (`GET /projects/:id/issues`, `GET /issues`). */
const ListQuery = Type.Object({
  ...PageQuery.properties,
  issue_type: IssueType,
  state: Type.Optional(Literals(['opened', 'closed', 'all'] as const)),
  labels: Type.Optional(Type.String({ description: 'comma-separated; every one must match; None, Any' })),
  assignee_id: Type.Optional(
    Type.Union([
      Type.Integer(),
      Type.Literal('None'),
      Type.Literal('Any'),
      Type.Literal('none'),
      Type.Literal('any'),
    ]),
  ),
  assignee_username: Type.Optional(Type.String()),
  author_id: Type.Optional(Type.Integer()),
  search: Type.Optional(Type.String({ maxLength: 255 })),
  severity: Type.Optional(Literals(LIST_SEVERITIES)),
  order_by: Type.Optional(Literals(['created_at', 'updated_at'] as const)),
  sort: Type.Optional(Literals(['asc', 'desc'] as const)),
});

function filterOf(q: Static<typeof ListQuery>) {
  const labels = q.labels?.trim().toLowerCase();
  return {
    issueType: q.issue_type,
    state: q.state === 'all' ? undefined : q.state,
    labels: labels === 'none' || labels === 'any' ? labels : labelList(q.labels),
    assigneeId:
      typeof q.assignee_id === 'string' ? (q.assignee_id.toLowerCase() as 'none' | 'any') : q.assignee_id,
    assigneeUsername: q.assignee_username,
    authorId: q.author_id,
    search: q.search?.trim() || undefined,
    severity: q.severity?.toLowerCase() as IssueSeverity | undefined,
    orderBy: q.order_by ?? 'created_at',
    sort: q.sort ?? 'desc',
  } as const;
}

/** The assignees of a request: `assignee_ids`, or GitLab's deprecated single `assignee_id` (0 unassigns). */
const assigneesOf = (b: { assignee_ids?: number[]; assignee_id?: number }) =>
  b.assignee_ids ?? (b.assignee_id === undefined ? undefined : [b.assignee_id]);

/**
 * GitLab's issues API for a project's issues and incidents (`issue_type=incident`), their notes and the incident
 * timeline (`timeline_events`, svc's REST form of GitLab's GraphQL timeline), the same in v4 and v5.
 */
export function issueRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'issues' | 'escalations'>,
  api: ApiVersion,
): void {
  const url = ctx.config.externalUrl;
  const E = api.entities;
  const P = api.present;
  const tags = ['issues'];
  const issues = ctx.issues;
  const path = '/projects/:id/issues/:issue_iid';

  app.get(
    '/projects/:id/issues',
    {
      schema: {
        tags,
        summary: 'List issues and incidents',
        params: Params,
        querystring: ListQuery,
        response: { 200: Type.Array(E.IssueEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await issues.list(req.actor.user, req.params.id, filterOf(req.query), page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((i) => P.issue(i, viewOf(req, url)));
    },
  );

  app.get(
    '/issues',
    {
      schema: {
        tags,
        summary:
          "The caller's issues in every project they may read (scope: created_by_me, assigned_to_me, all)",
        querystring: Type.Object({
          ...ListQuery.properties,
          scope: Type.Optional(
            Literals(['created_by_me', 'assigned_to_me', 'created-by-me', 'assigned-to-me', 'all'] as const),
          ),
        }),
        response: { 200: Type.Array(E.IssueEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const scope = (req.query.scope ?? 'created_by_me').replaceAll('-', '_') as
        | 'created_by_me'
        | 'assigned_to_me'
        | 'all';
      const result = await issues.listForUser(req.actor.user, scope, filterOf(req.query), page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((i) => P.issue(i, viewOf(req, url)));
    },
  );

  app.get(
    path,
    { schema: { tags, summary: 'Get an issue', params: IidParams, response: { 200: E.IssueEntity } } },
    async (req) =>
      P.issue(await issues.get(req.actor.user, req.params.id, req.params.issue_iid), viewOf(req, url)),
  );

  app.post(
    '/projects/:id/issues',
    {
      schema: {
        tags,
        summary: 'Open an issue, or an incident (Reporter and above)',
        params: Params,
        body: Type.Object({
          title: Type.String(),
          description: Type.Optional(Type.String()),
          issue_type: IssueType,
          severity: Severity,
          assignee_ids: AssigneeIds,
          assignee_id: Type.Optional(Type.Integer()),
          labels: Labels,
        }),
        response: { 201: E.IssueEntity },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const issue = await issues.create(req.actor.user, req.params.id, {
        title: b.title,
        description: b.description,
        issueType: b.issue_type,
        severity: b.severity,
        assigneeIds: assigneesOf(b),
        labels: labelList(b.labels),
      });
      return reply.status(201).send(P.issue(issue, viewOf(req, url)));
    },
  );

  app.put(
    path,
    {
      schema: {
        tags,
        summary: 'Change an issue: text, labels, assignees, severity, escalation status, close or reopen',
        params: IidParams,
        body: Type.Optional(
          Type.Object({
            title: Type.Optional(Type.String()),
            description: Type.Optional(Type.String()),
            state_event: Type.Optional(Literals(['close', 'reopen'] as const)),
            severity: Severity,
            escalation_status: EscalationStatus,
            assignee_ids: AssigneeIds,
            assignee_id: Type.Optional(Type.Integer()),
            labels: Labels,
            add_labels: Labels,
            remove_labels: Labels,
          }),
        ),
        response: { 200: E.IssueEntity },
      },
    },
    async (req) => {
      const b = req.body ?? {};
      const issue = await issues.update(req.actor.user, req.params.id, req.params.issue_iid, {
        title: b.title,
        description: b.description,
        stateEvent: b.state_event,
        severity: b.severity,
        escalationStatus: b.escalation_status,
        assigneeIds: assigneesOf(b),
        labels: labelList(b.labels),
        addLabels: labelList(b.add_labels),
        removeLabels: labelList(b.remove_labels),
      });
      return P.issue(issue, viewOf(req, url));
    },
  );

  app.delete(
    path,
    { schema: { tags, summary: 'Delete an issue (Owner, admin)', params: IidParams } },
    async (req, reply) => {
      await issues.delete(req.actor.user, req.params.id, req.params.issue_iid);
      return reply.status(204).send();
    },
  );

  // Notes: GitLab's notes API, as for merge requests.
  noteRoutes(app, url, api, {
    noteables: 'issues',
    what: 'an issue',
    notes: {
      list: (actor, id, iid, order, page) => issues.notes(actor, id, iid, order, page),
      get: (actor, id, iid, noteId) => issues.note(actor, id, iid, noteId),
      create: async (actor, id, iid, body) => {
        // GitLab's `/page <policy name>` quick action: for whoever may page the incident it runs, and its lines
        // leave the note (a note of nothing else is not stored); for anyone else they are plain text.
        const { names, rest } = pageCommands(body);
        const ran: { changes: Record<string, unknown>; message: string }[] = [];
        for (const name of names) {
          const r = await ctx.escalations.pageByQuickAction(actor, id, iid, name);
          if (!r) return issues.comment(actor, id, iid, body);
          ran.push(r);
        }
        if (names.length > 0 && rest.trim() === '')
          return {
            commandsOnly: true as const,
            changes: Object.assign({}, ...ran.map((r) => r.changes)),
            summary: ran.map((r) => r.message),
          };
        return issues.comment(actor, id, iid, rest);
      },
      update: (actor, id, iid, noteId, body) => issues.editComment(actor, id, iid, noteId, body),
      delete: (actor, id, iid, noteId) => issues.deleteComment(actor, id, iid, noteId),
    },
  });

  // The incident timeline

  const ttags = ['incident timeline'];
  const TagNames = Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 }));
  app.get(
    `${path}/timeline_events`,
    {
      schema: {
        tags: ttags,
        summary: "An incident's timeline, in time order",
        params: IidParams,
        response: { 200: Type.Array(E.TimelineEventEntity) },
      },
    },
    async (req) =>
      (await issues.timelineEvents(req.actor.user, req.params.id, req.params.issue_iid)).map((e) =>
        P.timelineEvent(e, viewOf(req, url)),
      ),
  );

  app.get(
    `${path}/timeline_events/:event_id`,
    {
      schema: {
        tags: ttags,
        summary: 'One timeline event',
        params: EventParams,
        response: { 200: E.TimelineEventEntity },
      },
    },
    async (req) => {
      const { id, issue_iid, event_id } = req.params;
      return P.timelineEvent(
        await issues.timelineEvent(req.actor.user, id, issue_iid, event_id),
        viewOf(req, url),
      );
    },
  );

  app.post(
    `${path}/timeline_events`,
    {
      schema: {
        tags: ttags,
        summary: 'Add a timeline event, or promote a comment to one (`note_id`) (Developer and above)',
        params: IidParams,
        body: Type.Object({
          note: Type.Optional(Type.String()),
          occurred_at: Type.Optional(Type.String()),
          timeline_event_tag_names: TagNames,
          note_id: Type.Optional(Type.Integer()),
        }),
        response: { 201: E.TimelineEventEntity },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const event = await issues.createTimelineEvent(req.actor.user, req.params.id, req.params.issue_iid, {
        note: b.note,
        occurredAt: b.occurred_at,
        tagNames: b.timeline_event_tag_names,
        noteId: b.note_id,
      });
      return reply.status(201).send(P.timelineEvent(event, viewOf(req, url)));
    },
  );

  const EditBody = Type.Optional(
    Type.Object({
      note: Type.Optional(Type.String()),
      occurred_at: Type.Optional(Type.String()),
      timeline_event_tag_names: TagNames,
    }),
  );
  for (const method of ['put', 'patch'] as const)
    app[method](
      `${path}/timeline_events/:event_id`,
      {
        schema: {
          tags: ttags,
          summary: 'Change a timeline event someone wrote (Developer and above)',
          params: EventParams,
          body: EditBody,
          response: { 200: E.TimelineEventEntity },
        },
      },
      async (req) => {
        const { id, issue_iid, event_id } = req.params;
        const b = req.body ?? {};
        const event = await issues.updateTimelineEvent(req.actor.user, id, issue_iid, event_id, {
          note: b.note,
          occurredAt: b.occurred_at,
          tagNames: b.timeline_event_tag_names,
        });
        return P.timelineEvent(event, viewOf(req, url));
      },
    );

  app.delete(
    `${path}/timeline_events/:event_id`,
    {
      schema: {
        tags: ttags,
        summary: 'Delete a timeline event (Developer and above); answers the deleted event, as GitLab',
        params: EventParams,
        response: { 200: E.TimelineEventEntity },
      },
    },
    async (req) => {
      const { id, issue_iid, event_id } = req.params;
      return P.timelineEvent(
        await issues.deleteTimelineEvent(req.actor.user, id, issue_iid, event_id),
        viewOf(req, url),
      );
    },
  );

  app.get(
    '/projects/:id/incident_management/timeline_event_tags',
    {
      schema: {
        tags: ttags,
        summary: "A project's timeline event tags, GitLab's predefined ones included",
        params: Params,
        response: { 200: Type.Array(E.TimelineEventTagEntity) },
      },
    },
    async (req) =>
      (await issues.timelineTags(req.actor.user, req.params.id)).map((t) => P.timelineEventTag(t)),
  );

  app.post(
    '/projects/:id/incident_management/timeline_event_tags',
    {
      schema: {
        tags: ttags,
        summary: 'Add a timeline event tag (Maintainer and above)',
        params: Params,
        body: Type.Object({ name: Type.String() }),
        response: { 201: E.TimelineEventTagEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          P.timelineEventTag(await issues.createTimelineTag(req.actor.user, req.params.id, req.body.name)),
        ),
  );
}
