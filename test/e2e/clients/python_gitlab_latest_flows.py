"""Drives svc with the newest python-gitlab (vendored in vendor/python-gitlab-8.4.0) the way its users do.

Prints one line per check; a failing call is reported with the client, the call (the flow's line) and svc's
answer (python-gitlab's exception carries the status and body). Exits 1 when anything failed.
Both calling styles are used: `create({"name": ...})` sends a JSON body, `create(name=...)` sends the
attributes in the query string with an empty `{}` body (svc reads query and body as one set of parameters).

Usage: python3 python_gitlab_latest_flows.py URL ROOT_TOKEN GIT_WORKDIR
"""
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import traceback

import gitlab
from gitlab import exceptions as gle

CLIENT = f"python-gitlab {gitlab.__version__}"
url, token, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
gl = gitlab.Gitlab(url, private_token=token)
checks = []


def check(name, cond, detail=""):
    checks.append((name, bool(cond)))
    print(("ok   " if cond else "FAIL ") + f"{CLIENT}: {name}" + ("" if cond else f" ({detail})"), flush=True)


def raises(name, exc, fn, code=None):
    try:
        fn()
    except exc as e:
        ok = code is None or e.response_code == code
        check(f"{name} raises {exc.__name__} {code or ''}".rstrip(), ok, f"got {e.response_code}: {e.error_message}")
        return
    except Exception as e:  # noqa: BLE001
        check(f"{name} raises {exc.__name__}", False, f"got {type(e).__name__}: {e}")
        return
    check(f"{name} raises {exc.__name__}", False, "got nothing")


def section(name):
    """Runs a section; an exception fails it and names the call that raised (the flow's own line)."""

    def wrap(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            frame = next((f for f in reversed(traceback.extract_tb(e.__traceback__)) if f.filename == __file__), None)
            call = f"line {frame.lineno}: {frame.line}" if frame else "?"
            answer = f"{e.response_code} {e.error_message}" if isinstance(e, gle.GitlabError) else f"{type(e).__name__}: {e}"
            check(f"{name}: {call}", False, f"svc answered {answer}")
        return fn

    return wrap


def git(*args, env=None):
    subprocess.run(["git", *args], check=True, env=env, capture_output=True)


state = {}


@section("authentication and version")
def _():
    gl.auth()
    check("auth() finds root", gl.user.username == "root")
    version, revision = gl.version()
    check("version()", version not in (None, "unknown") and revision not in (None, "unknown"))


@section("users")
def _():
    u = gl.users.create({"username": "py8-user", "email": "py8@example.com", "name": "Py8 User", "password": "py8-user-password-1"})
    state["u"] = u
    check("users.create({...})", u.id > 0 and u.username == "py8-user")
    check("users.get", gl.users.get(u.id).username == "py8-user")
    check("users.list(username=)", [x.id for x in gl.users.list(username="py8-user")] == [u.id])
    check("users.list(search=)", u.id in [x.id for x in gl.users.list(search="py8-us")])
    u.name = "Py8 User B"
    u.save()
    check("user.save()", gl.users.get(u.id).name == "Py8 User B")
    pat = u.personal_access_tokens.create({"name": "py8", "scopes": ["api"]})
    state["user_token"] = pat.token
    check("user.personal_access_tokens.create", bool(pat.token))
    as_user = gitlab.Gitlab(url, private_token=pat.token)
    as_user.auth()
    check("the new token authenticates as the user", as_user.user.username == "py8-user")
    check("personal_access_tokens.get('self')", as_user.personal_access_tokens.get("self").name == "py8")
    check("personal_access_tokens.list(user_id=)", "py8" in [t.name for t in gl.personal_access_tokens.list(user_id=u.id, get_all=True)])
    u.block()
    # GitLab answers a blocked user's requests 403 "Your account has been blocked." (a GitlabGetError for auth()).
    raises("a blocked user's token", gle.GitlabGetError, lambda: gitlab.Gitlab(url, private_token=pat.token).auth(), 403)
    u.unblock()
    check("user.unblock()", gitlab.Gitlab(url, private_token=pat.token).users.list(username="py8-user")[0].id == u.id)


@section("groups and namespaces")
def _():
    g = gl.groups.create({"name": "py8-group", "path": "py8-group"})
    sg = gl.groups.create({"name": "py8-sub", "path": "py8-sub", "parent_id": g.id})
    state["g"], state["sg"] = g, sg
    check("subgroup created", sg.parent_id == g.id)
    check("group.subgroups.list", [x.id for x in g.subgroups.list()] == [sg.id])
    check("group.descendant_groups.list", [x.id for x in g.descendant_groups.list()] == [sg.id])
    check("groups.list(search=)", g.id in [x.id for x in gl.groups.list(search="py8-group")])
    check("namespaces.get(path)", gl.namespaces.get("py8-group/py8-sub").id == sg.id)
    check("namespaces.list(search=)", sg.id in [n.id for n in gl.namespaces.list(search="py8-sub")])
    g.description = "changed by python-gitlab 8"
    g.save()
    check("group.save()", gl.groups.get(g.id).description == "changed by python-gitlab 8")


@section("projects")
def _():
    sg = state["sg"]
    # Keyword style: python-gitlab sends these as query-string attributes with an empty JSON body.
    p = gl.projects.create(name="py8-app", namespace_id=sg.id, description="kw style")
    state["p"] = p
    check("projects.create(name=..., namespace_id=...) (query string)", p.path_with_namespace == "py8-group/py8-sub/py8-app" and p.description == "kw style")
    q = gl.projects.create({"name": "py8-dict", "namespace_id": sg.id, "visibility": "internal"})
    check("projects.create({...}) (body)", q.visibility == "internal")
    check("projects.get(path)", gl.projects.get("py8-group/py8-sub/py8-app").id == p.id)
    check("projects.list(owned=True)", p.id in [x.id for x in gl.projects.list(owned=True, get_all=True)])
    check("projects.list(search=)", [x.id for x in gl.projects.list(search="py8-app")] == [p.id])
    check("group.projects.list(include_subgroups=True)", {p.id, q.id} <= {x.id for x in state["g"].projects.list(include_subgroups=True, get_all=True)})
    p.description = "changed by python-gitlab 8"
    p.merge_method = "ff"
    p.only_allow_merge_if_all_discussions_are_resolved = True
    p.wiki_access_level = "disabled"
    p.save()
    again = gl.projects.get(p.id)
    check("project.save() round-trips description, merge settings and access levels",
          (again.description, again.merge_method, again.only_allow_merge_if_all_discussions_are_resolved, again.wiki_access_level)
          == ("changed by python-gitlab 8", "ff", True, "disabled"))
    check("permissions on a single project", again.permissions["group_access"]["access_level"] == 50)
    given = state["u"].projects.create({"name": "py8-gift"})
    check("user.projects.create() (POST /projects/user/:id)", given.path_with_namespace == "py8-user/py8-gift")
    check("user.projects.list()", [x.path for x in state["u"].projects.list()] == ["py8-gift"])
    q.delete()
    raises("deleted project", gle.GitlabGetError, lambda: gl.projects.get(q.id), 404)


@section("members")
def _():
    p, g, u = state["p"], state["g"], state["u"]
    p.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
    g.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.MAINTAINER})
    check("project.members.list", u.id in [m.id for m in p.members.list()])
    check("project.members.get", p.members.get(u.id).access_level == 30)
    best = {m.id: m.access_level for m in p.members_all.list(get_all=True)}
    check("project.members_all.list takes the highest level", best.get(u.id) == 40)
    check("group.members_all.list", u.id in [m.id for m in g.members_all.list(get_all=True)])
    m = g.members.get(u.id)
    m.access_level = gitlab.const.AccessLevel.REPORTER
    m.save()
    check("group member .save()", g.members.get(u.id).access_level == 20)
    g.members.delete(u.id)
    check("group.members.delete", u.id not in [x.id for x in g.members.list()])


@section("snippets")
def _():
    p = state["p"]
    s = p.snippets.create({"title": "py8 snippet", "file_name": "a.py", "content": "print(1)\n", "visibility": "private"})
    check("project snippet raw", p.snippets.get(s.id).content() == b"print(1)\n")
    s.title = "py8 snippet 2"
    s.save()
    check("project snippet .save()", p.snippets.get(s.id).title == "py8 snippet 2")
    ps = gl.snippets.create({"title": "py8 personal", "files": [{"file_path": "b.txt", "content": "b\n"}], "visibility": "public"})
    check("personal snippet with files[]", gl.snippets.get(ps.id).content() == b"b\n")
    check("snippets.list()", ps.id in [x.id for x in gl.snippets.list(get_all=True)])
    check("snippets.list_public()", ps.id in [x.id for x in gl.snippets.list_public(get_all=True)])
    ps.delete()
    raises("deleted snippet", gle.GitlabGetError, lambda: gl.snippets.get(ps.id), 404)


@section("project hooks with GitLab's event flags, delivered to a receiver")
def _():
    p = state["p"]
    # A hook on loopback needs the admin's setting for local requests.
    s = gl.settings.get()
    s.allow_local_requests_from_web_hooks_and_services = True
    s.save()
    received = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.append((self.headers.get("X-Gitlab-Event"), self.headers.get("X-Gitlab-Token"), json.loads(body)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["receiver"], state["received"] = server, received
    hook_url = f"http://127.0.0.1:{server.server_address[1]}/py8"
    hook = p.hooks.create({"url": hook_url, "push_events": True, "merge_requests_events": True, "note_events": True,
                           "tag_push_events": False, "issues_events": True, "enable_ssl_verification": False, "token": "s3cret"})
    check("project.hooks.create with GitLab's flags", (hook.push_events, hook.merge_requests_events, hook.note_events, hook.tag_push_events, hook.issues_events) == (True, True, True, False, True), hook.attributes)
    default = p.hooks.create({"url": "http://127.0.0.1:9/defaults"})
    check("a hook created with only its url: push_events defaults to true", default.push_events is True and default.merge_requests_events is False, default.attributes)
    unresolvable = p.hooks.create({"url": "http://no-such-host.invalid/hook", "push_events": False, "note_events": True})
    check("a hook on a host that does not resolve is saved", unresolvable.id > 0 and unresolvable.note_events is True)
    hook.tag_push_events = True
    hook.alert_events = True
    hook.save()
    again = p.hooks.get(hook.id)
    check("hook .save() keeps GitLab's flags and svc's own", (again.tag_push_events, again.push_events, again.alert_events, again.enable_ssl_verification) == (True, True, True, False), again.attributes)
    check("project.hooks.list", sorted(h.id for h in p.hooks.list()) == sorted([hook.id, default.id, unresolvable.id]))
    default.delete()
    unresolvable.delete()
    check("hook .delete()", [h.id for h in p.hooks.list()] == [hook.id])
    state["hook"] = hook


def wait_for_hook(event, pred=lambda body: True):
    for _ in range(300):
        found = [b for (e, t, b) in state["received"] if e == event and t == "s3cret" and pred(b)]
        if found:
            return found[0]
        time.sleep(0.1)
    return None


@section("a pushed repository and merge requests")
def _():
    p, u = state["p"], state["u"]
    repo = os.path.join(workdir, "repo")
    auth = p.http_url_to_repo.replace("http://", f"http://root:{token}@")
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    git("clone", "-q", auth, repo)
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("hello\n")
    git("-C", repo, "add", "README.md")
    git("-C", repo, "commit", "-qm", "first", env=env)
    git("-C", repo, "push", "-q", "origin", "HEAD:main")
    git("-C", repo, "checkout", "-qb", "feature")
    with open(os.path.join(repo, "b.txt"), "w") as f:
        f.write("b\n")
    git("-C", repo, "add", "b.txt")
    git("-C", repo, "commit", "-qm", "feature", env=env)
    git("-C", repo, "push", "-q", "origin", "feature")
    push = wait_for_hook("Push Hook", lambda b: b["ref"] == "refs/heads/feature")
    check("a push hook for the pushed branch", push is not None and push["total_commits_count"] == 1, push)
    archive = p.repository_archive(format="tar.gz")
    check("project.repository_archive()", archive[:2] == b"\x1f\x8b")

    mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "py8 mr"})
    check("mergerequests.create({...})", mr.iid == 1)
    check("a merge request hook for the new request", wait_for_hook("Merge Request Hook", lambda b: b["object_attributes"]["action"] == "open") is not None)
    check("mergerequests.list(state='opened')", [m.iid for m in p.mergerequests.list(state="opened")] == [1])
    mr.description = "described"
    mr.save()
    check("mr.save()", p.mergerequests.get(mr.iid).description == "described")
    check("mr.changes()", [c["new_path"] for c in mr.changes()["changes"]] == ["b.txt"])
    check("mr.commits()", len(list(mr.commits())) == 1)
    versions = mr.diffs.list()
    check("mr.diffs.list() (diff versions)", [v.head_commit_sha for v in versions] == [mr.sha])
    version = mr.diffs.get(versions[0].id)
    check("mr.diffs.get(id)", [d["new_path"] for d in version.diffs] == ["b.txt"])
    check("mr.approvals.get() before any approval", mr.approvals.get().approved_by == [])
    as_dev = gitlab.Gitlab(url, private_token=state["user_token"])
    dev_mr = as_dev.projects.get(p.id, lazy=True).mergerequests.get(mr.iid)
    dev_mr.approve(sha=dev_mr.sha)
    check("mr.approve() by a Developer", [a["user"]["username"] for a in mr.approvals.get().approved_by] == ["py8-user"])
    dev_mr.unapprove()
    check("mr.unapprove()", mr.approvals.get().approved_by == [])
    check("mr.approval_state.get()", mr.approval_state.get().approval_rules_overwritten is False)
    rule = mr.approval_rules.create({"name": "py8 rule", "approvals_required": 0, "user_ids": [u.id]})
    check("mr.approval_rules.create()", rule.eligible_approvers[0]["username"] == "py8-user")
    rule.name = "py8 rule 2"
    rule.save()
    check("approval rule .save()", mr.approval_rules.get(rule.id).name == "py8 rule 2")
    rule.delete()
    check("approval rule .delete()", mr.approval_rules.list() == [])
    note = mr.notes.create({"body": "py8 comment"})
    note.body = "py8 comment edited"
    note.save()
    check("mr.notes create, save, get", mr.notes.get(note.id).body == "py8 comment edited")
    check("a merge request hook for the note", wait_for_hook("Note Hook", lambda b: b["object_attributes"]["note"] == "py8 comment") is not None)
    mr.merge()
    check("a merge request hook for the merge", wait_for_hook("Merge Request Hook", lambda b: b["object_attributes"]["action"] == "merge") is not None)
    check("mr.merge()", p.mergerequests.get(mr.iid).state == "merged")
    check("mr.notes.list() has the system notes", "merged" in [n.body for n in mr.notes.list(get_all=True) if n.system])
    note.delete()
    check("note .delete()", note.id not in [n.id for n in mr.notes.list(get_all=True)])


@section("project approval settings and rules")
def _():
    p, u = state["p"], state["u"]
    approvals = p.approvals.get()
    approvals.approvals_before_merge = 1
    approvals.save()
    check("project approvals .save()", p.approvals.get().approvals_before_merge == 1)
    rule = p.approvalrules.create({"name": "py8 project rule", "approvals_required": 1, "user_ids": [u.id]})
    check("project.approvalrules.create", rule.name == "py8 project rule")
    check("project.approvalrules.list", [r.id for r in p.approvalrules.list()] == [rule.id])
    rule.approvals_required = 0
    rule.save()
    check("project approval rule .save()", p.approvalrules.get(rule.id).approvals_required == 0)
    rule.delete()
    check("project approval rule .delete()", p.approvalrules.list() == [])


@section("issues and audit events")
def _():
    p, g = state["p"], state["g"]
    check("project.issues.list() (svc's issues come from alerts)", p.issues.list() == [])
    check("audit_events.list() (instance)", isinstance(gl.audit_events.list(), list))
    check("group.audit_events.list()", isinstance(g.audit_events.list(), list))
    check("project.audit_events.list()", isinstance(p.audit_events.list(), list))


@section("error tracking (generic requests: python-gitlab has no manager)")
def _():
    p = state["p"]
    raises("error tracking settings never saved", gle.GitlabHttpError, lambda: gl.http_get(f"/projects/{p.id}/error_tracking/settings"), 404)
    gl.http_put(f"/projects/{p.id}/error_tracking/settings", post_data={"active": True, "integrated": False, "api_host": "https://sentry.example.com", "token": "t", "project": {"slug": "backend", "name": "Backend", "organization_slug": "acme", "organization_name": "Acme"}})
    settings = gl.http_patch(f"/projects/{p.id}/error_tracking/settings", post_data={"active": False})
    check("PATCH error_tracking/settings {active: false}", settings["active"] is False and settings["project_name"] == "Backend")
    key = gl.http_post(f"/projects/{p.id}/error_tracking/client_keys")
    keys = gl.http_list(f"/projects/{p.id}/error_tracking/client_keys", get_all=True)
    check("error tracking client keys create and list", [k["id"] for k in keys] == [key["id"]])
    gl.http_delete(f"/projects/{p.id}/error_tracking/client_keys/{key['id']}")
    check("client key delete", gl.http_list(f"/projects/{p.id}/error_tracking/client_keys") == [])


@section("features and application settings")
def _():
    feature = gl.features.set("integrated_error_tracking", True)
    check("features.set()", feature.state == "on")
    check("features.list()", "integrated_error_tracking" in [f.name for f in gl.features.list(get_all=True)])
    gl.features.delete("integrated_error_tracking")
    check("features.delete()", "integrated_error_tracking" not in [f.name for f in gl.features.list(get_all=True)])
    s = gl.settings.get()
    s.error_tracking_retention_days = 30
    s.save()
    check("settings .save()", gl.settings.get().error_tracking_retention_days == 30)


@section("appearance, geo nodes, project and group runners, token revocation")
def _():
    p, g, u = state["p"], state["g"], state["u"]
    look = gl.appearance.get()
    look.title = "py8 instance"
    look.save()
    check("appearance .save()", gl.appearance.get().title == "py8 instance")
    check("geonodes.list()", isinstance(gl.geonodes.list(), list))
    check("geonodes.status()", isinstance(gl.geonodes.status(), list))
    runner = gl.user.runners.create({"runner_type": "project_type", "project_id": p.id, "description": "py8 project runner"})
    check("project.runners.list()", runner.id in [r.id for r in p.runners.list(get_all=True)])
    group_runner = gl.user.runners.create({"runner_type": "group_type", "group_id": g.id, "description": "py8 group runner"})
    check("group.runners.list()", group_runner.id in [r.id for r in g.runners.list(get_all=True)])
    gl.runners.delete(runner.id)
    gl.runners.delete(group_runner.id)
    token = u.personal_access_tokens.create({"name": "py8-revoked", "scopes": ["read_api"]})
    gl.personal_access_tokens.delete(token.id)
    raises("a revoked token", gle.GitlabAuthenticationError, lambda: gitlab.Gitlab(url, private_token=token.token).auth(), 401)


@section("pagination")
def _():
    g = state["g"]
    for i in range(105):
        gl.projects.create(name=f"bulk-{i:03d}", namespace_id=g.id)
    check("offset pagination over 105 projects (get_all)", len(g.projects.list(get_all=True, per_page=50)) == 105)
    check("offset pagination (iterator)", len(list(g.projects.list(iterator=True, per_page=40))) == 105)
    seen = [x.id for x in gl.users.list(pagination="keyset", order_by="id", per_page=1, iterator=True)]
    check("keyset pagination over users (iterator)", len(seen) == len(set(seen)) and state["u"].id in seen)


@section("repository storage moves (generic requests: python-gitlab 8.4 has no manager for them)")
def _():
    p = state["p"]
    source = gl.projects.get(p.id).repository_storage
    target = "other" if source == "default" else "default"
    move = gl.http_post(f"/projects/{p.id}/repository_storage_moves", post_data={"destination_storage_name": target})
    check("schedule a project repository storage move", move["state"] in ("scheduled", "started", "finished"))
    for _ in range(150):
        move = gl.http_get(f"/projects/{p.id}/repository_storage_moves/{move['id']}")
        if move["state"] in ("finished", "failed"):
            break
        time.sleep(0.2)
    check("the move finishes and the project is on the new storage", move["state"] == "finished" and gl.projects.get(p.id).repository_storage == target)
    check("project_repository_storage_moves list", move["id"] in [m["id"] for m in gl.http_list("/project_repository_storage_moves", get_all=True)])


@section("runners")
def _():
    created = gl.user.runners.create({"runner_type": "instance_type", "description": "py8 runner"})
    runner = gl.runners.get(created.id)
    check("user.runners.create and runners.get", runner.description == "py8 runner")
    runner.description = "py8 runner 2"
    runner.save()
    check("runner .save()", gl.runners.get(created.id).description == "py8 runner 2")
    check("runners_all.list()", created.id in [r.id for r in gl.runners_all.list(get_all=True)])
    gl.runners.verify(created.token)
    raises("runners.verify with a wrong token", gle.GitlabVerifyError, lambda: gl.runners.verify("glrt-wrong"), 403)
    gl.runners.delete(created.id)
    raises("deleted runner", gle.GitlabGetError, lambda: gl.runners.get(created.id), 404)


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360f8cfc0f01f0005000201a0bf1ae40000000049454e44ae426082"
)


@section("application settings with GitLab's keys, enforced")
def _():
    s = gl.settings.get()
    before = (s.signup_enabled, s.default_project_visibility, s.default_projects_limit)
    s.signup_enabled = False
    s.default_project_visibility = "internal"
    s.default_projects_limit = 7
    s.save()
    again = gl.settings.get()
    check("settings .save() round-trips signup_enabled, default_project_visibility, default_projects_limit",
          (again.signup_enabled, again.default_project_visibility, again.default_projects_limit) == (False, "internal", 7), again.attributes)
    p = gl.projects.create({"name": "py8-default-visibility", "namespace_id": state["sg"].id})
    check("a project created without a visibility takes default_project_visibility", p.visibility == "internal", p.visibility)
    u = gl.users.create({"username": "py8-limited", "email": "py8l@example.com", "name": "Limited", "password": "py8-limited-password-1"})
    check("a new user gets default_projects_limit", u.projects_limit == 7, u.projects_limit)
    gl.users.delete(u.id)
    p.delete()
    s.signup_enabled, s.default_project_visibility, s.default_projects_limit = before
    s.save()


@section("avatars, snippets.list_all(), skip_groups, block and unblock answers")
def _():
    u, g, sg = state["u"], state["g"], state["sg"]
    path = os.path.join(workdir, "avatar.png")
    with open(path, "wb") as f:
        f.write(PNG)
    check("a user without an upload has an identicon avatar_url", bool(gl.users.get(u.id).avatar_url))
    p = gl.projects.create({"name": "py8-avatar", "namespace_id": sg.id})
    check("a project without an avatar: avatar_url is null", p.avatar_url is None)
    p.avatar = open(path, "rb")
    p.save()
    url_ = gl.projects.get(p.id).avatar_url
    check("project.avatar = open(...); save()", bool(url_) and url_.endswith("avatar.png"), url_)
    served = gl.session.get(url_, headers={"PRIVATE-TOKEN": token})
    check("the project's avatar is served byte for byte", served.status_code == 200 and served.content == PNG, served.status_code)
    sg.avatar = open(path, "rb")
    sg.save()
    check("group.avatar = open(...); save()", (gl.groups.get(sg.id).avatar_url or "").endswith("avatar.png"))
    u.avatar = open(path, "rb")
    u.save()
    check("user.avatar = open(...); save()", gl.users.get(u.id).avatar_url.endswith("avatar.png"))
    p.delete()
    ps = gl.snippets.create({"title": "py8 for all", "files": [{"file_path": "c.txt", "content": "c\\n"}], "visibility": "private"})
    check("snippets.list_all() (admins: every snippet)", ps.id in [x.id for x in gl.snippets.list_all(get_all=True)])
    ps.delete()
    check("groups.list(skip_groups=[...])", sg.id not in [x.id for x in gl.groups.list(skip_groups=[sg.id], get_all=True)] and g.id in [x.id for x in gl.groups.list(skip_groups=[sg.id], get_all=True)])
    check("user.block() answers true", u.block() is True)
    check("user.unblock() answers true", u.unblock() is True)


@section("projects and namespaces: users, groups, exists, storage, the license")
def _():
    p, g, sg, u = state["p"], state["g"], state["sg"], state["u"]
    users = [x.username for x in p.users.list(get_all=True)]
    check("project.users.list()", "py8-user" in users and "root" in users, users)
    check("project.groups.list() (the ancestors)", {g.id, sg.id} <= {x.id for x in p.groups.list(get_all=True)})
    taken = gl.namespaces.exists("py8-group")
    check("namespaces.exists(taken)", taken.exists is True and taken.suggests == ["py8-group1"], taken.attributes)
    check("namespaces.exists(free)", gl.namespaces.exists("py8-free").exists is False)
    check("namespaces.exists(parent_id=) for a subgroup path", gl.namespaces.exists("py8-sub", parent_id=g.id).exists is True)
    storage = p.storage.get()
    check("project.storage.get()", storage.project_id == p.id and storage.disk_path.startswith("@hashed/"), storage.attributes)
    lic = gl.get_license()
    check("gl.get_license() on Premium", lic.get("plan") == "premium", lic)


@section("tokens: rotation, project and group access tokens, impersonation")
def _():
    p, g, u = state["p"], state["g"], state["u"]
    pat = u.personal_access_tokens.create({"name": "py8-rotate", "scopes": ["api", "read_user"]})
    rotated = gl.personal_access_tokens.get(pat.id)
    new = rotated.rotate()
    check("personal_access_tokens.get(id).rotate()", new["token"] and new["token"] != pat.token and new["scopes"] == ["api", "read_user"], new)
    raises("the rotated-away token", gle.GitlabAuthenticationError, lambda: gitlab.Gitlab(url, private_token=pat.token).auth(), 401)
    mine = gitlab.Gitlab(url, private_token=new["token"])
    again = mine.personal_access_tokens.get("self").rotate(self_rotate=True)
    check("personal_access_tokens.get('self').rotate(self_rotate=True)", again["token"] not in (None, new["token"]))
    gitlab.Gitlab(url, private_token=again["token"]).auth()
    pt = p.access_tokens.create({"name": "py8 bot", "scopes": ["api"], "access_level": 40, "expires_at": "2099-01-01"})
    check("project.access_tokens.create()", bool(pt.token) and pt.access_level == 40, pt.attributes)
    as_bot = gitlab.Gitlab(url, private_token=pt.token)
    as_bot.auth()
    check("the project token's bot user", as_bot.user.username.startswith(f"project_{p.id}_bot"), as_bot.user.username)
    check("project.access_tokens.list()", [t.id for t in p.access_tokens.list()] == [pt.id])
    rot = p.access_tokens.rotate(pt.id)
    check("project.access_tokens.rotate(id)", rot["token"] != pt.token)
    state["project_bot_token"] = rot["token"]
    gt = g.access_tokens.create({"name": "py8 group bot", "scopes": ["read_api"], "access_level": 30, "expires_at": "2099-01-01"})
    check("group.access_tokens.create()", bool(gt.token) and [t.id for t in g.access_tokens.list()] == [gt.id])
    g.access_tokens.delete(gt.id)
    check("group.access_tokens.delete()", g.access_tokens.list() == [])
    imp = u.impersonationtokens.create({"name": "py8 imp", "scopes": ["api"]})
    check("user.impersonationtokens.create()", imp.impersonation is True and bool(imp.token))
    check("the impersonation token acts as the user", gitlab.Gitlab(url, private_token=imp.token).users.list(username="py8-user")[0].id == u.id)
    check("user.impersonationtokens.list(state='active')", [t.id for t in u.impersonationtokens.list(state="active")] == [imp.id])
    imp.delete()
    check("impersonation token .delete()", u.impersonationtokens.list(state="active") == [])


@section("ban and unban")
def _():
    u = state["u"]
    u.ban()
    check("user.ban()", gl.users.get(u.id).state == "banned")
    u.unban()
    check("user.unban()", gl.users.get(u.id).state == "active")


@section("a project initialized with a README: tree, files, blobs, branches, commits, compare")
def _():
    sg = state["sg"]
    # Keyword style: query-string attributes with an empty body.
    r = gl.projects.create(name="py8-repo", namespace_id=sg.id, initialize_with_readme=True)
    state["r"] = r
    check("projects.create(initialize_with_readme=True): not empty, readme_url", r.empty_repo is False and (r.readme_url or "").endswith("/-/blob/main/README.md"), (r.empty_repo, r.readme_url))
    e = gl.projects.create({"name": "py8-empty", "namespace_id": sg.id})
    check("a project created without: empty_repo, no readme_url", e.empty_repo is True and e.readme_url is None)
    e.delete()
    check("project.repository_tree()", [t["name"] for t in r.repository_tree()] == ["README.md"])
    readme = r.files.get(file_path="README.md", ref="main")
    check("project.files.get()", readme.decode().startswith(b"# py8-repo"), readme.decode())
    r.files.create({"file_path": "docs/guide.md", "branch": "main", "content": "guide\\n", "commit_message": "add the guide"})
    guide = r.files.get("docs/guide.md", ref="main")
    guide.content = "guide, edited\\n"
    guide.save(branch="main", commit_message="edit the guide")
    check("project.files.create(), then file .save()", r.files.raw(file_path="docs/guide.md", ref="main") == b"guide, edited\\n")
    head = r.files.head("docs/guide.md", ref="main")
    check("project.files.head()", head.get("X-Gitlab-File-Path") == "docs/guide.md", dict(head))
    check("project.repository_tree(path=)", [t["path"] for t in r.repository_tree(path="docs")] == ["docs/guide.md"])
    blob_id = r.files.get("docs/guide.md", ref="main").blob_id
    check("project.repository_blob()", r.repository_blob(blob_id)["size"] == len(b"guide, edited\\n"))
    check("project.repository_raw_blob()", r.repository_raw_blob(blob_id) == b"guide, edited\\n")
    branch = r.branches.create({"branch": "py8-topic", "ref": "main"})
    check("project.branches.create()", branch.name == "py8-topic" and branch.commit["id"] == r.commits.list(ref_name="main")[0].id)
    check("project.branches.list(search=)", [b.name for b in r.branches.list(search="py8")] == ["py8-topic"])
    commit = r.commits.create({"branch": "py8-topic", "commit_message": "two files at once", "actions": [
        {"action": "create", "file_path": "topic.txt", "content": "topic\\n"},
        {"action": "update", "file_path": "README.md", "content": "# py8-repo\\n\\nchanged on the topic\\n"},
    ]})
    check("project.commits.create() with actions", commit.title == "two files at once")
    check("commit.diff()", sorted(d["new_path"] for d in r.commits.get(commit.id).diff()) == ["README.md", "topic.txt"])
    check("project.commits.list(ref_name=)", r.commits.list(ref_name="py8-topic")[0].id == commit.id)
    cmp = r.repository_compare("main", "py8-topic")
    check("project.repository_compare()", [c["id"] for c in cmp["commits"]] == [commit.id] and sorted(d["new_path"] for d in cmp["diffs"]) == ["README.md", "topic.txt"])
    guide.delete(branch="main", commit_message="remove the guide")
    raises("a deleted file", gle.GitlabGetError, lambda: r.files.get("docs/guide.md", ref="main"), 404)
    r.branches.create({"branch": "py8-doomed", "ref": "main"})
    r.branches.delete("py8-doomed")
    raises("a deleted branch", gle.GitlabGetError, lambda: r.branches.get("py8-doomed"), 404)


@section("merge requests: merge_ref, participants, rebase, reset_approvals")
def _():
    r, u = state["r"], state["u"]
    r.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
    r.commits.create({"branch": "main", "commit_message": "main moves on", "actions": [{"action": "create", "file_path": "main.txt", "content": "m\\n"}]})
    mr = r.mergerequests.create({"source_branch": "py8-topic", "target_branch": "main", "title": "py8 topic", "description": "cc @py8-user"})
    ref = mr.merge_ref()
    check("mr.merge_ref()", len(ref["commit_id"]) == 40, ref)
    people = [x["username"] for x in mr.participants()]
    check("mr.participants()", people == ["root", "py8-user"], people)
    check("mr.rebase()", "rebase_in_progress" in mr.rebase())
    for _ in range(300):
        now = r.mergerequests.get(mr.iid, include_rebase_in_progress=True)
        if not now.rebase_in_progress:
            break
        time.sleep(0.1)
    check("the rebased source branch sits on main", r.repository_compare("main", "py8-topic")["commits"][0]["parent_ids"] == [r.commits.list(ref_name="main")[0].id] and not now.merge_error, now.merge_error)
    as_dev = gitlab.Gitlab(url, private_token=state["user_token"])
    dev_mr = as_dev.projects.get(r.id, lazy=True).mergerequests.get(mr.iid)
    dev_mr.approve()
    raises("mr.reset_approvals() by a person (even an admin)", gle.GitlabAuthenticationError, lambda: mr.reset_approvals(), 401)
    bot_token = r.access_tokens.create({"name": "py8 reset bot", "scopes": ["api"], "access_level": 30, "expires_at": "2099-01-01"}).token
    gitlab.Gitlab(url, private_token=bot_token).projects.get(r.id, lazy=True).mergerequests.get(mr.iid).reset_approvals()
    check("mr.reset_approvals() by a project token's bot", mr.approvals.get().approved_by == [])


@section("issues and incidents: create, notes, close, delete")
def _():
    r = state["r"]
    issue = r.issues.create({"title": "py8 issue", "description": "plain"})
    check("project.issues.create({...})", issue.iid == 1 and issue.issue_type == "issue" and issue.state == "opened")
    incident = r.issues.create({"title": "py8 incident", "issue_type": "incident"})
    check("project.issues.create({'issue_type': 'incident'})", incident.issue_type == "incident")
    note = incident.notes.create({"body": "looking into it"})
    check("issue.notes.create()", note.body == "looking into it" and [n.id for n in incident.notes.list() if not n.system] == [note.id])
    incident.state_event = "close"
    incident.save()
    check("issue.state_event = 'close'; save()", r.issues.get(incident.iid).state == "closed")
    r.issues.update(incident.iid, {"state_event": "reopen"})
    check("issues.update(iid, {...})", r.issues.get(incident.iid).state == "opened")
    check("project.issues.list(issue_type='incident')", [i.iid for i in r.issues.list(issue_type="incident")] == [incident.iid])
    events = gl.http_post(f"/projects/{r.id}/issues/{incident.iid}/timeline_events", post_data={"note": "started", "occurred_at": "2026-01-01T00:00:00Z"})
    timeline = gl.http_list(f"/projects/{r.id}/issues/{incident.iid}/timeline_events", get_all=True)
    check("timeline_events (generic requests: python-gitlab has no manager)", events["note"] == "started" and events["id"] in [e["id"] for e in timeline], timeline)
    issue.delete()
    raises("a deleted issue", gle.GitlabGetError, lambda: r.issues.get(issue.iid), 404)


@section("transfers")
def _():
    g, sg, r = state["g"], state["sg"], state["r"]
    other = gl.groups.create({"name": "py8-other", "path": "py8-other"})
    state["other"] = other
    r.transfer(other.id)
    moved = gl.projects.get(r.id)
    check("project.transfer(namespace id)", moved.path_with_namespace == "py8-other/py8-repo")
    check("the old path redirects", gl.projects.get("py8-group/py8-sub/py8-repo").id == r.id)
    r.transfer("py8-group/py8-sub")
    check("project.transfer(namespace path)", gl.projects.get(r.id).path_with_namespace == "py8-group/py8-sub/py8-repo")
    child = gl.groups.create({"name": "py8-child", "path": "py8-child", "parent_id": g.id})
    child.transfer(other.id)
    check("group.transfer(group_id)", gl.groups.get(child.id).full_path == "py8-other/py8-child")
    child.transfer()
    check("group.transfer() (to the top level)", gl.groups.get(child.id).full_path == "py8-child")
    gl.groups.delete(child.id)


@section("errors")
def _():
    raises("bad token", gle.GitlabAuthenticationError, lambda: gitlab.Gitlab(url, private_token="nope").auth(), 401)
    as_user = gitlab.Gitlab(url, private_token=state["user_token"])
    raises("non-admin creating a user", gle.GitlabCreateError, lambda: as_user.users.create({"username": "x", "email": "x@example.com", "name": "x", "password": "x-password-123"}), 403)
    raises("missing project", gle.GitlabGetError, lambda: gl.projects.get(999999), 404)
    raises("a project without a name", gle.GitlabCreateError, lambda: gl.projects.create({}), 400)


@section("deletes")
def _():
    p, g, u = state["p"], state["g"], state["u"]
    gl.projects.delete(p.id)
    raises("deleted project", gle.GitlabGetError, lambda: gl.projects.get(p.id), 404)
    gl.groups.delete(state["other"].id)
    gl.groups.delete(g.id)
    for _ in range(100):
        try:
            gl.groups.get(g.id)
            time.sleep(0.2)
        except gle.GitlabGetError:
            break
    raises("deleted non-empty group", gle.GitlabGetError, lambda: gl.groups.get(g.id), 404)
    # svc refuses to delete a user who still has personal projects (409); GitLab deletes them with the user.
    for own in u.projects.list(get_all=True):
        gl.projects.delete(own.id)
    gl.users.delete(u.id)
    raises("deleted user", gle.GitlabGetError, lambda: gl.users.get(u.id), 404)


failed = [n for n, ok in checks if not ok]
print(f"{len(checks) - len(failed)} of {len(checks)} checks passed")
sys.exit(1 if failed else 0)
