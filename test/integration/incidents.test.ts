import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface IssueBody {
  id: number;
  iid: number;
  title: string;
  description: string;
  state: string;
  type: string;
  issue_type: string;
  severity: string;
  escalation_status: string | null;
  labels: string[];
  assignees: { username: string }[];
  assignee: { username: string } | null;
  author: { username: string } | null;
  closed_by: { username: string } | null;
  closed_at: string | null;
  user_notes_count: number;
  references: { short: string; full: string };
}
interface NoteBody {
  id: number;
  body: string;
  system: boolean;
  author: { username: string } | null;
  noteable_type: string;
}
interface EventBody {
  id: number;
  note: string;
  action: string;
  editable: boolean;
  occurred_at: string;
  author: { username: string } | null;
  promoted_from_note: { id: number } | null;
  timeline_event_tags: { id: number; name: string }[];
}

/**
 * Incidents people work in, from the outside: GitLab's issues API with `issue_type=incident`, its notes with the
 * system notes of every change, the incident timeline and its tags, the roles, and the link to alerts.
 */
describe.each(await databases())('incidents (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let projectId: number;
  let projectPath: string;
  const base = () => `/api/v4/projects/${projectId}`;
  const tok = (who: string) => ({ token: tokens[who] });

  async function open(who: string, body: Record<string, unknown>) {
    const r = await api.post<IssueBody>(`${base()}/issues`, { ...tok(who), body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  }
  const change = (who: string, iid: number, body: Record<string, unknown>) =>
    api.put<IssueBody>(`${base()}/issues/${iid}`, { ...tok(who), body });
  const systemNotes = async (iid: number) =>
    (await api.get<NoteBody[]>(`${base()}/issues/${iid}/notes?sort=asc&per_page=100`, tok('owner'))).body
      .filter((n) => n.system)
      .map((n) => [n.body, n.author?.username ?? null]);
  const systemNotesOf = async (pid: number, iid: number) =>
    (await api.get<NoteBody[]>(`/api/v4/projects/${pid}/issues/${iid}/notes?sort=asc`, tok('owner'))).body
      .filter((n) => n.system)
      .map((n) => [n.body, n.author?.username ?? null]);
  const timeline = async (iid: number, who = 'owner') =>
    (await api.get<EventBody[]>(`${base()}/issues/${iid}/timeline_events`, tok(who))).body;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    for (const name of ['owner', 'maint', 'dev', 'reporter', 'guest', 'outsider']) {
      const u = await createUser(s, name);
      ids[name] = u.id;
      tokens[name] = u.token;
    }
    tokens.admin = s.rootToken;
    const p = await api.post('/api/v4/projects', { ...tok('owner'), body: { name: 'pager' } });
    projectId = p.body.id;
    projectPath = p.body.path_with_namespace;
    const levels = { maint: 40, dev: 30, reporter: 20, guest: 10 } as const;
    for (const [who, level] of Object.entries(levels))
      expect(
        (
          await api.post(`${base()}/members`, {
            ...tok('owner'),
            body: { user_id: ids[who], access_level: level },
          })
        ).status,
      ).toBe(201);
  });
  afterAll(() => s?.stop());

  it('lives through its lifecycle by API: open, assign, comment, severity, acknowledge, close, reopen, delete', async () => {
    const incident = await open('reporter', {
      title: 'Checkout down',
      description: 'Payments **fail**',
      issue_type: 'incident',
      severity: 'HIGH',
      assignee_ids: [ids.dev],
      labels: 'payments,sev 1',
    });
    expect(incident).toMatchObject({
      title: 'Checkout down',
      state: 'opened',
      type: 'INCIDENT',
      issue_type: 'incident',
      severity: 'HIGH',
      escalation_status: 'triggered',
      labels: ['payments', 'sev 1'],
      assignees: [{ username: 'dev' }],
      assignee: { username: 'dev' },
      author: { username: 'reporter' },
      closed_by: null,
      user_notes_count: 0,
      references: { short: `#${incident.iid}`, full: `${projectPath}#${incident.iid}` },
    });
    // GitLab sends `milestone` (null without one; svc has none) and clients such as GitLab's MCP server require it.
    expect(incident).toHaveProperty('milestone', null);
    const iid = incident.iid;

    const assigned = await change('reporter', iid, { assignee_ids: [ids.dev, ids.maint] });
    expect(assigned.body.assignees.map((u) => u.username).sort()).toEqual(['dev', 'maint']);
    const unassigned = await change('reporter', iid, { assignee_ids: [ids.maint] });
    expect(unassigned.body.assignees.map((u) => u.username)).toEqual(['maint']);
    expect((await change('reporter', iid, { assignee_ids: [ids.dev, ids.maint] })).status).toBe(200);
    const comment = await api.post<NoteBody>(`${base()}/issues/${iid}/notes`, {
      ...tok('guest'),
      body: { body: 'Rolled back the **deploy**' },
    });
    expect(comment.status).toBe(201);
    expect(comment.body).toMatchObject({
      system: false,
      noteable_type: 'Issue',
      author: { username: 'guest' },
    });
    expect((await change('dev', iid, { severity: 'critical' })).body.severity).toBe('CRITICAL');
    expect((await change('dev', iid, { escalation_status: 'acknowledged' })).body.escalation_status).toBe(
      'acknowledged',
    );
    expect(
      (await change('dev', iid, { add_labels: 'cause', remove_labels: 'payments' })).body.labels,
    ).toEqual(['cause', 'sev 1']);
    expect((await change('dev', iid, { title: 'Checkout is down' })).body.title).toBe('Checkout is down');

    const closed = await change('dev', iid, { state_event: 'close' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      state: 'closed',
      closed_by: { username: 'dev' },
      escalation_status: 'resolved',
      user_notes_count: 1,
    });
    expect(closed.body.closed_at).not.toBeNull();
    // Closing again changes nothing and writes nothing.
    expect((await change('dev', iid, { state_event: 'close' })).status).toBe(200);
    const reopened = await change('reporter', iid, { state_event: 'reopen' });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_by: null, closed_at: null });

    expect(await systemNotes(iid)).toEqual([
      ['assigned to @maint', 'reporter'],
      ['unassigned @dev', 'reporter'],
      ['assigned to @dev', 'reporter'],
      ['changed the severity to **Critical - S1**', 'dev'],
      ['changed the incident status to **Acknowledged**', 'dev'],
      ['added ~cause label and removed ~payments label', 'dev'],
      ['changed title from **Checkout down** to **Checkout is down**', 'dev'],
      ['closed', 'dev'],
      ['changed the incident status to **Resolved** by closing the incident', 'dev'],
      ['reopened', 'reporter'],
    ]);
    expect((await timeline(iid)).map((e) => [e.note, e.action, e.author?.username, e.editable])).toEqual([
      ['@reporter created the incident', 'issues', 'reporter', false],
      ['@dev changed the incident severity to **Critical**', 'severity', 'dev', false],
      ['@dev changed the incident status to **Acknowledged**', 'status', 'dev', false],
      ['@dev added ~cause label and removed ~payments label', 'label', 'dev', false],
      ['@dev resolved the incident', 'status', 'dev', false],
      ['@reporter reopened the incident', 'issues', 'reporter', false],
    ]);

    // Reopening leaves the escalation status as it is (GitLab's ReopenService); resolving it closes the incident,
    // and moving it back from resolved reopens it.
    expect(reopened.body.escalation_status).toBe('resolved');
    expect((await change('dev', iid, { escalation_status: 'acknowledged' })).body).toMatchObject({
      state: 'opened',
      escalation_status: 'acknowledged',
    });
    const resolved = await change('dev', iid, { escalation_status: 'resolved' });
    expect(resolved.body).toMatchObject({ state: 'closed', escalation_status: 'resolved' });
    const triggered = await change('dev', iid, { escalation_status: 'triggered' });
    expect(triggered.body).toMatchObject({ state: 'opened', escalation_status: 'triggered' });
    expect((await systemNotes(iid)).slice(10)).toEqual([
      ['changed the incident status to **Acknowledged**', 'dev'],
      ['changed the incident status to **Resolved**', 'dev'],
      ['closed', 'dev'],
      ['changed the incident status to **Triggered**', 'dev'],
      ['reopened', 'dev'],
    ]);
    expect((await timeline(iid)).slice(6).map((e) => e.note)).toEqual([
      '@dev changed the incident status to **Acknowledged**',
      '@dev changed the incident status to **Resolved**',
      '@dev changed the incident status to **Triggered**',
      '@dev reopened the incident',
    ]);

    // Comments: edited by their author, never a system note; deleted by a Maintainer.
    const notes = (await api.get<NoteBody[]>(`${base()}/issues/${iid}/notes?sort=asc`, tok('dev'))).body;
    const system = notes.find((n) => n.system)!;
    expect(
      (await api.put(`${base()}/issues/${iid}/notes/${system.id}`, { ...tok('owner'), body: { body: 'x' } }))
        .status,
    ).toBe(403);
    const edited = await api.put<NoteBody>(`${base()}/issues/${iid}/notes/${comment.body.id}`, {
      ...tok('guest'),
      body: { body: 'Rolled back the deploy at 10:02' },
    });
    expect(edited.body.body).toBe('Rolled back the deploy at 10:02');

    // Deleting: Owners and admins only.
    for (const who of ['reporter', 'dev', 'maint'])
      expect((await api.delete(`${base()}/issues/${iid}`, tok(who))).status, who).toBe(403);
    expect((await api.delete(`${base()}/issues/${iid}`, tok('owner'))).status).toBe(204);
    expect((await api.get(`${base()}/issues/${iid}`, tok('owner'))).status).toBe(404);
    expect((await api.get(`${base()}/issues/${iid}/notes`, tok('owner'))).status).toBe(404);
    const other = await open('reporter', { title: 'Other', issue_type: 'incident' });
    expect((await api.delete(`${base()}/issues/${other.iid}`, tok('admin'))).status).toBe(204);
  });

  it('keeps a timeline: events written, promoted from a comment, tagged, edited, deleted, in time order', async () => {
    const { iid } = await open('dev', { title: 'Latency', issue_type: 'incident' });
    const events = `${base()}/issues/${iid}/timeline_events`;
    const comment = (
      await api.post<NoteBody>(`${base()}/issues/${iid}/notes`, {
        ...tok('reporter'),
        body: { body: 'p99 is 4s' },
      })
    ).body;
    const promoted = await api.post<EventBody>(events, { ...tok('dev'), body: { note_id: comment.id } });
    expect(promoted.status).toBe(201);
    expect(promoted.body).toMatchObject({
      note: 'p99 is 4s',
      action: 'comment',
      editable: true,
      promoted_from_note: { id: comment.id },
      author: { username: 'dev' },
    });
    const early = await api.post<EventBody>(events, {
      ...tok('dev'),
      body: {
        note: 'First **errors**',
        occurred_at: '2020-01-01T10:00:00Z',
        timeline_event_tag_names: ['start time'],
      },
    });
    expect(early.status).toBe(201);
    expect(early.body.timeline_event_tags.map((t) => t.name)).toEqual(['Start time']);
    const list = await timeline(iid, 'guest');
    expect(list.map((e) => e.note)).toEqual(['First **errors**', '@dev created the incident', 'p99 is 4s']);

    const edited = await api.put<EventBody>(`${events}/${early.body.id}`, {
      ...tok('dev'),
      body: { note: 'First errors seen', timeline_event_tag_names: ['Start time', 'Impact detected'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.note).toBe('First errors seen');
    expect(edited.body.timeline_event_tags.map((t) => t.name)).toEqual(['Start time', 'Impact detected']);
    const automatic = list.find((e) => e.action === 'issues')!;
    const refused = await api.put(`${events}/${automatic.id}`, { ...tok('dev'), body: { note: 'x' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'You cannot edit this timeline event.' });
    const gone = await api.delete<EventBody>(`${events}/${promoted.body.id}`, tok('dev'));
    expect(gone.status).toBe(200);
    expect(gone.body.id).toBe(promoted.body.id);
    expect((await timeline(iid)).map((e) => e.note)).toEqual([
      'First errors seen',
      '@dev created the incident',
    ]);
    expect(await systemNotes(iid)).toEqual([
      ['added an incident timeline event', 'dev'],
      ['added an incident timeline event', 'dev'],
      ['edited an incident timeline event', 'dev'],
      ['deleted an incident timeline event', 'dev'],
    ]);

    // The project's tags: GitLab's predefined ones, and the project's own (Maintainer).
    const tagsUrl = `${base()}/incident_management/timeline_event_tags`;
    const tagNames = async () =>
      (await api.get<{ name: string }[]>(tagsUrl, tok('guest'))).body.map((t) => t.name);
    expect(await tagNames()).toEqual(
      expect.arrayContaining([
        'Start time',
        'End time',
        'Impact detected',
        'Response initiated',
        'Impact mitigated',
        'Cause identified',
      ]),
    );
    expect((await api.post(tagsUrl, { ...tok('dev'), body: { name: 'Customer comms' } })).status).toBe(403);
    expect((await api.post(tagsUrl, { ...tok('maint'), body: { name: 'Customer comms' } })).status).toBe(201);
    const dup = await api.post(tagsUrl, { ...tok('maint'), body: { name: 'customer COMMS' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { name: ['has already been taken'] } });
    expect(await tagNames()).toContain('Customer comms');
    const tagged = await api.post<EventBody>(events, {
      ...tok('dev'),
      body: {
        note: 'Status page updated',
        occurred_at: '2030-01-01T00:00:00Z',
        timeline_event_tag_names: ['customer comms'],
      },
    });
    expect(tagged.body.timeline_event_tags.map((t) => t.name)).toEqual(['Customer comms']);
    const unknown = await api.post(events, {
      ...tok('dev'),
      body: { note: 'x', occurred_at: '2030-01-01T00:00:00Z', timeline_event_tag_names: ['Nope'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: `Following tags don't exist: ["Nope"]` });

    // A plain issue has no timeline.
    const plain = await open('dev', { title: 'Not an incident' });
    expect((await api.get(`${base()}/issues/${plain.iid}/timeline_events`, tok('dev'))).status).toBe(404);
  });

  it('lets each role do what GitLab lets it do', async () => {
    // Opening: a Guest's incident is a plain issue (GitLab drops the type); Reporters open incidents.
    const byGuest = await open('guest', { title: 'From a guest', issue_type: 'incident', severity: 'HIGH' });
    expect(byGuest).toMatchObject({ type: 'ISSUE', severity: 'UNKNOWN', escalation_status: null });
    const incident = await open('reporter', { title: 'From a reporter', issue_type: 'incident' });
    expect(incident.type).toBe('INCIDENT');
    expect((await api.post(`${base()}/issues`, { ...tok('outsider'), body: { title: 'x' } })).status).toBe(
      404,
    );
    expect((await api.post(`${base()}/issues`, { body: { title: 'x' } })).status).toBe(401);

    // Reading: members; outsiders do not see the private project.
    expect((await api.get(`${base()}/issues/${incident.iid}`, tok('guest'))).status).toBe(200);
    expect((await api.get(`${base()}/issues/${incident.iid}`, tok('outsider'))).status).toBe(404);
    expect((await api.get(`${base()}/issues/${incident.iid}/timeline_events`, tok('guest'))).status).toBe(
      200,
    );

    // Changing an incident: Reporter and above; a Guest changes only their own plain issue, without metadata.
    const guestEdit = await change('guest', incident.iid, { title: 'Mine now' });
    expect(guestEdit.status).toBe(403);
    expect((await change('reporter', incident.iid, { severity: 'LOW' })).body.severity).toBe('LOW');
    const own = await change('guest', byGuest.iid, { title: 'From a guest, edited', labels: 'ignored' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ title: 'From a guest, edited', labels: [] });
    expect((await change('guest', byGuest.iid, { state_event: 'close' })).body.state).toBe('closed');
    expect((await change('outsider', incident.iid, { title: 'x' })).status).toBe(404);
    expect((await api.put(`${base()}/issues/${incident.iid}`, { body: { title: 'x' } })).status).toBe(401);

    // The timeline: Developers write; Reporters read.
    const event = { note: 'Paged the DBA', occurred_at: '2030-01-01T00:00:00Z' };
    const events = `${base()}/issues/${incident.iid}/timeline_events`;
    expect((await api.post(events, { ...tok('reporter'), body: event })).status).toBe(403);
    expect((await api.post(events, { ...tok('dev'), body: event })).status).toBe(201);

    // Notes: signed in, whoever may read.
    expect((await api.get(`${base()}/issues/${incident.iid}/notes`)).status).toBe(401);
    expect((await api.get(`${base()}/issues/${incident.iid}/notes`, tok('outsider'))).status).toBe(404);

    // Deleting: Owner; the incident is left as it was for anyone below.
    expect((await api.delete(`${base()}/issues/${incident.iid}`, tok('maint'))).status).toBe(403);
    expect((await api.get(`${base()}/issues/${incident.iid}`, tok('maint'))).body.title).toBe(
      'From a reporter',
    );
  });

  it('filters and pages the list as GitLab: state, type, labels, assignees, search, severity, order', async () => {
    const p = await api.post('/api/v4/projects', { ...tok('owner'), body: { name: 'filters' } });
    const pid = p.body.id as number;
    for (const who of ['dev', 'reporter'])
      await api.post(`/api/v4/projects/${pid}/members`, {
        ...tok('owner'),
        body: { user_id: ids[who], access_level: who === 'dev' ? 30 : 20 },
      });
    const url = `/api/v4/projects/${pid}/issues`;
    const make = async (body: Record<string, unknown>) =>
      (await api.post<IssueBody>(url, { ...tok('dev'), body })).body.iid;
    const a = await make({
      title: 'Disk full on db-1',
      issue_type: 'incident',
      labels: 'db,disk',
      assignee_ids: [ids.dev],
    });
    const b = await make({
      title: 'Slow queries',
      description: 'the DB is at 100% cpu',
      issue_type: 'incident',
      labels: 'db',
      severity: 'HIGH',
    });
    const c = await make({ title: 'Typo in docs', assignee_ids: [ids.reporter] });
    await api.put(`${url}/${b}`, { ...tok('dev'), body: { state_event: 'close' } });
    await api.put(`${url}/${a}`, { ...tok('dev'), body: { description: 'touched last' } });
    const iids = async (q: string) =>
      (await api.get<IssueBody[]>(`${url}?${q}`, tok('reporter'))).body.map((i) => i.iid);

    expect(await iids('')).toEqual([c, b, a]);
    expect(await iids('state=opened')).toEqual([c, a]);
    expect(await iids('state=closed')).toEqual([b]);
    expect(await iids('issue_type=incident')).toEqual([b, a]);
    expect(await iids('labels=db')).toEqual([b, a]);
    expect(await iids('labels=db,disk')).toEqual([a]);
    expect(await iids('labels=None')).toEqual([c]);
    expect(await iids('labels=Any')).toEqual([b, a]);
    expect(await iids('assignee_username=dev')).toEqual([a]);
    expect(await iids('assignee_username=nobody-here')).toEqual([]);
    expect(await iids(`assignee_id=${ids.reporter}`)).toEqual([c]);
    expect(await iids('assignee_id=None')).toEqual([b]);
    expect(await iids('assignee_id=Any')).toEqual([c, a]);
    expect(await iids('search=DB')).toEqual([b, a]);
    expect(await iids('search=100%25')).toEqual([b]);
    expect(await iids('search=1_0')).toEqual([]);
    expect(await iids('severity=HIGH')).toEqual([b]);
    expect(await iids('issue_type=incident&severity=unknown')).toEqual([a]);
    const badSeverity = await api.get(`${url}?severity=SEV1`, tok('reporter'));
    expect(badSeverity.status).toBe(400);
    expect(badSeverity.body).toEqual({ error: 'severity does not have a valid value' });
    expect(await iids('order_by=updated_at')).toEqual([a, b, c]);
    expect(await iids('order_by=created_at&sort=asc')).toEqual([a, b, c]);
    const page = await api.get<IssueBody[]>(`${url}?per_page=1&page=2`, tok('reporter'));
    expect(page.body.map((i) => i.iid)).toEqual([b]);
    expect(page.headers.get('x-total')).toBe('3');
    expect(page.headers.get('x-next-page')).toBe('3');
    expect((await api.get(`${url}?state=open`, tok('reporter'))).status).toBe(400);
  });

  it("lists the caller's issues across the projects they may read (GET /issues, GitLab's scopes)", async () => {
    const lister = await createUser(s, 'lister');
    const other = await createUser(s, 'other');
    const mine = (await api.post('/api/v4/projects', { token: lister.token, body: { name: 'mine' } })).body
      .id;
    const theirs = (await api.post('/api/v4/projects', { token: other.token, body: { name: 'theirs' } })).body
      .id;
    const member = `/api/v4/projects/${theirs}/members`;
    await api.post(member, { token: other.token, body: { user_id: lister.id, access_level: 20 } });
    const make = async (token: string, pid: number, body: Record<string, unknown>) =>
      (await api.post<IssueBody>(`/api/v4/projects/${pid}/issues`, { token, body })).body.id;
    const a = await make(lister.token, mine, {
      title: 'A',
      issue_type: 'incident',
      assignee_ids: [lister.id],
    });
    const b = await make(lister.token, mine, { title: 'B' });
    const c = await make(other.token, theirs, { title: 'C', assignee_ids: [lister.id] });
    const d = await make(other.token, theirs, { title: 'D', issue_type: 'incident' });
    const ids = async (q: string, token?: string) => {
      const r = await api.get<IssueBody[]>(`/api/v4/issues${q}`, { token });
      return r.status === 200 ? r.body.map((i) => i.id) : r.status;
    };
    expect(await ids('', lister.token)).toEqual([b, a]);
    expect(await ids('?scope=assigned_to_me', lister.token)).toEqual([c, a]);
    expect(await ids('?scope=assigned-to-me&issue_type=incident', lister.token)).toEqual([a]);
    expect(await ids('?scope=all', lister.token)).toEqual([d, c, b, a]);
    expect(await ids('?scope=all&assignee_username=lister', lister.token)).toEqual([c, a]);
    // Someone who leaves a project no longer sees its issues, even those assigned to them.
    expect((await api.delete(`${member}/${lister.id}`, { token: other.token })).status).toBe(204);
    expect(await ids('?scope=assigned_to_me', lister.token)).toEqual([a]);
    expect(await ids('?scope=all', lister.token)).toEqual([b, a]);
    // Anonymous: `all` only, and only what is public.
    expect(await ids('')).toBe(401);
    expect(await ids('?scope=all')).toEqual([]);
  });

  it('refuses bad input with GitLab-shaped 400s and changes nothing', async () => {
    const incident = await open('dev', { title: 'Steady', issue_type: 'incident', severity: 'medium' });
    const url = `${base()}/issues/${incident.iid}`;
    const before = (await api.get<IssueBody>(url, tok('dev'))).body;
    const count = async () =>
      Number((await api.get(`${base()}/issues?per_page=1`, tok('dev'))).headers.get('x-total'));
    const total = await count();

    const cases: [Record<string, unknown>, unknown][] = [
      [{ severity: 'SEV1' }, { error: 'severity does not have a valid value' }],
      [{ title: 'x'.repeat(256) }, { message: { title: ['is too long (maximum is 255 characters)'] } }],
      [{ title: '   ' }, { message: { title: ["can't be blank"] } }],
      [{ state_event: 'shut' }, { error: 'state_event does not have a valid value' }],
      [{ escalation_status: 'paused' }, { error: 'escalation_status does not have a valid value' }],
      [
        { severity: 'LOW', title: 'y'.repeat(300) },
        { message: { title: ['is too long (maximum is 255 characters)'] } },
      ],
    ];
    for (const [body, error] of cases) {
      const r = await change('dev', incident.iid, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual(error);
    }
    const none = await change('dev', incident.iid, {});
    expect(none.status).toBe(400);
    expect(String((none.body as unknown as { error: string }).error)).toMatch(
      /at least one parameter must be provided/,
    );
    expect((await api.get<IssueBody>(url, tok('dev'))).body).toEqual(before);
    expect(await systemNotes(incident.iid)).toEqual([]);

    for (const body of [
      { title: 'Bad', issue_type: 'incident', severity: 'urgent' },
      { title: 'z'.repeat(256), issue_type: 'incident' },
      { title: 'Bad', issue_type: 'task' },
      { issue_type: 'incident' },
    ]) {
      const r = await api.post(`${base()}/issues`, { ...tok('dev'), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect(await count()).toBe(total);

    const events = `${url}/timeline_events`;
    const tooLong = await api.post(events, {
      ...tok('dev'),
      body: { note: 'n'.repeat(281), occurred_at: '2030-01-01T00:00:00Z' },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ message: { note: ['is too long (maximum is 280 characters)'] } });
    const badTime = await api.post(events, { ...tok('dev'), body: { note: 'n', occurred_at: 'yesterday' } });
    expect(badTime.status).toBe(400);
    expect(badTime.body).toEqual({ error: 'occurred_at is invalid' });
    expect((await timeline(incident.iid)).length).toBe(1);
  });

  describe('an incident an alert opened', () => {
    async function alertIncident(name: string, autoResolve: boolean) {
      const p = await api.post('/api/v4/projects', { ...tok('owner'), body: { name } });
      const pid = p.body.id as number;
      await api.post(`/api/v4/projects/${pid}/members`, {
        ...tok('owner'),
        body: { user_id: ids.dev, access_level: 30 },
      });
      const settings = await api.put(`/api/v4/projects/${pid}/alert_management/settings`, {
        ...tok('owner'),
        body: { create_incident: true, auto_resolve_alerts: autoResolve },
      });
      expect(settings.body).toMatchObject({ create_incident: true, auto_resolve_alerts: autoResolve });
      const integration = await createIntegration(api, tokens.owner!, pid, {
        name: 'http',
        type: 'http',
        active: true,
      });
      const send = (extra: Record<string, unknown> = {}) =>
        notify(integration.url, integration.authorization_key, {
          title: 'Error rate high',
          severity: 'high',
          fingerprint: `${name}-fp`,
          ...extra,
        });
      const sent = await send();
      expect(sent.status).toBe(200);
      const alertUrl = `/api/v4/projects/${pid}/alert_management/alerts/${sent.body[0].iid}`;
      const alert = (await api.get(alertUrl, tok('dev'))).body;
      expect(alert.incident).not.toBeNull();
      // The incident's alerts, from the alert list.
      const ofIncident = await api.get(
        `/api/v4/projects/${pid}/alert_management/alerts?incident_iid=${alert.incident}`,
        tok('dev'),
      );
      expect(ofIncident.body.map((a: { iid: number }) => a.iid)).toEqual([alert.iid]);
      expect(
        (
          await api.get(
            `/api/v4/projects/${pid}/alert_management/alerts?incident_iid=${alert.incident + 100}`,
            tok('dev'),
          )
        ).body,
      ).toEqual([]);
      return { pid, alertUrl, iid: alert.incident as number, send };
    }

    it('is an incident of the alert, with its severity, that closing by hand resolves with its alert', async () => {
      const { pid, alertUrl, iid } = await alertIncident('auto-resolving', true);
      const url = `/api/v4/projects/${pid}/issues/${iid}`;
      const incident = (await api.get<IssueBody>(url, tok('dev'))).body;
      expect(incident).toMatchObject({
        type: 'INCIDENT',
        severity: 'HIGH',
        escalation_status: 'triggered',
        author: null,
      });
      expect(
        (await api.get<EventBody[]>(`${url}/timeline_events`, tok('dev'))).body.map((e) => e.note),
      ).toEqual(['@alert-bot created the incident']);
      expect((await api.put(url, { ...tok('dev'), body: { state_event: 'close' } })).status).toBe(200);
      const alert = (await api.get(alertUrl, tok('dev'))).body;
      expect(alert.status).toBe('resolved');
      expect(alert.ended_at).not.toBeNull();
      const notes = (await api.get<{ body: string }[]>(`${alertUrl}/notes`, tok('dev'))).body.map(
        (n) => n.body,
      );
      expect(notes).toContain(`changed the status to **Resolved** because @dev closed incident #${iid}`);
    });

    it('keeps its alert open when the project says closing does not resolve alerts', async () => {
      const { pid, alertUrl, iid } = await alertIncident('not-resolving', false);
      const closed = await api.put<IssueBody>(`/api/v4/projects/${pid}/issues/${iid}`, {
        ...tok('dev'),
        body: { state_event: 'close' },
      });
      expect(closed.body).toMatchObject({ state: 'closed', escalation_status: 'resolved' });
      expect((await api.get(alertUrl, tok('dev'))).body.status).toBe('triggered');
    });

    it('is closed by the recovery of its alert, with its note and timeline, as GitLab’s alert bot', async () => {
      const { pid, iid, send } = await alertIncident('recovering', true);
      expect((await send({ end_time: new Date().toISOString() })).status).toBe(200);
      const url = `/api/v4/projects/${pid}/issues/${iid}`;
      expect((await api.get<IssueBody>(url, tok('dev'))).body).toMatchObject({
        state: 'closed',
        escalation_status: 'resolved',
        closed_by: null,
      });
      expect(await systemNotesOf(pid, iid)).toEqual([['closed', null]]);
      expect(
        (await api.get<EventBody[]>(`${url}/timeline_events`, tok('dev'))).body.map((e) => e.note),
      ).toEqual(['@alert-bot created the incident', '@alert-bot resolved the incident']);
    });

    it('is forgotten by its alert when deleted', async () => {
      const { pid, alertUrl, iid } = await alertIncident('deleted', true);
      expect((await api.delete(`/api/v4/projects/${pid}/issues/${iid}`, tok('owner'))).status).toBe(204);
      expect((await api.get(alertUrl, tok('dev'))).body.incident).toBeNull();
      expect(
        (await api.get(`/api/v4/projects/${pid}/alert_management/alerts?incident_iid=${iid}`, tok('dev')))
          .body,
      ).toEqual([]);
    });
  });
});
