"""Drives svc with the newest python-gitlab (vendored in vendor/python-gitlab-8.4.0) the way its users do.

Prints one line per check; a failing call is reported with the client, the call (the flow's line) and svc's
answer (python-gitlab's exception carries the status and body). Exits 1 when anything failed.
Both calling styles are used: `create({"name": ...})` sends a JSON body, `create(name=...)` sends the
attributes in the query string with an empty `{}` body (svc reads query and body as one set of parameters).

Usage: python3 python_gitlab_latest_flows.py URL ROOT_TOKEN GIT_WORKDIR
"""
import os
import subprocess
import sys
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
    archive = p.repository_archive(format="tar.gz")
    check("project.repository_archive()", archive[:2] == b"\x1f\x8b")

    mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "py8 mr"})
    check("mergerequests.create({...})", mr.iid == 1)
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
    mr.merge()
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


@section("project hooks")
def _():
    p = state["p"]
    # A hook on loopback (nothing listens there) needs the admin's setting for local requests.
    s = gl.settings.get()
    s.allow_local_requests_from_web_hooks_and_services = True
    s.save()
    # svc's own event flags; GitLab's (push_events, merge_requests_events...) are not served yet.
    hook = p.hooks.create({"url": "http://127.0.0.1:9/py8", "alert_events": True, "error_tracking_events": False, "token": "s3cret"})
    check("project.hooks.create", hook.url == "http://127.0.0.1:9/py8" and hook.alert_events is True and hook.error_tracking_events is False)
    hook.error_tracking_events = True
    hook.enable_ssl_verification = False
    hook.save()
    again = p.hooks.get(hook.id)
    check("hook .save()", again.error_tracking_events is True and again.enable_ssl_verification is False)
    check("project.hooks.list", [h.id for h in p.hooks.list()] == [hook.id])
    hook.delete()
    check("hook .delete()", p.hooks.list() == [])


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
