"""Drives svc with Debian's python3-gitlab the way its users do; prints one line per check, exits 1 on failure.

Usage: python3 python_gitlab_flows.py URL ROOT_TOKEN GIT_WORKDIR
"""
import subprocess
import sys
import os

import gitlab
from gitlab import exceptions as gle

url, token, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
gl = gitlab.Gitlab(url, private_token=token)
checks = []


def check(name, cond):
    checks.append((name, bool(cond)))
    print(("ok   " if cond else "FAIL ") + name, flush=True)


def raises(name, exc, fn):
    try:
        fn()
    except exc as e:
        check(f"{name} raises {exc.__name__} ({e.response_code})", True)
        return
    except Exception as e:  # noqa: BLE001
        check(f"{name} raises {exc.__name__}, got {type(e).__name__}: {e}", False)
        return
    check(f"{name} raises {exc.__name__}, got nothing", False)


# Authentication and version
gl.auth()
check("auth() finds root", gl.user.username == "root")
check("version()", gl.version()[0] not in (None, "unknown"))

# Users: create, get, list, lookup by username, delete
u = gl.users.create({"username": "py-user", "email": "py@example.com", "name": "Py User", "password": "py-user-password-1"})
check("users.create", u.id > 0)
check("users.get", gl.users.get(u.id).username == "py-user")
check("users.list(username=)", [x.id for x in gl.users.list(username="py-user")] == [u.id])
check("users.list(search=)", u.id in [x.id for x in gl.users.list(search="py-us")])
pat = u.personal_access_tokens.create({"name": "py", "scopes": ["api"]}) if hasattr(u, "personal_access_tokens") else None
if pat is None:
    pat = gl.http_post(f"/users/{u.id}/personal_access_tokens", post_data={"name": "py", "scopes": ["api"]})
    user_token = pat["token"]
else:
    user_token = pat.token
check("personal access token for the user", user_token.startswith("svcpat-") or len(user_token) > 10)

# Groups and subgroups
g = gl.groups.create({"name": "py-group", "path": "py-group"})
sg = gl.groups.create({"name": "py-sub", "path": "py-sub", "parent_id": g.id})
check("subgroup created", sg.parent_id == g.id)
check("group.subgroups.list", [x.id for x in g.subgroups.list()] == [sg.id])
check("group.descendant_groups.list", [x.id for x in g.descendant_groups.list()] == [sg.id])
check("namespaces.get(path)", gl.namespaces.get("py-group/py-sub").id == sg.id)

# Projects: create, get by path, list with filters, update, delete
p = gl.projects.create({"name": "py-app", "namespace_id": sg.id})
check("projects.get(path)", gl.projects.get("py-group/py-sub/py-app").id == p.id)
check("projects.list(owned=True)", p.id in [x.id for x in gl.projects.list(owned=True, get_all=True)])
check("projects.list(search=)", [x.id for x in gl.projects.list(search="py-app")] == [p.id])
p.description = "changed by python-gitlab"
p.save()
check("project.save()", gl.projects.get(p.id).description == "changed by python-gitlab")
p.merge_method = "ff"
p.only_allow_merge_if_all_discussions_are_resolved = True
p.wiki_access_level = "disabled"
p.save()
again = gl.projects.get(p.id)
check("merge settings and access levels round-trip", (again.merge_method, again.only_allow_merge_if_all_discussions_are_resolved, again.wiki_access_level) == ("ff", True, "disabled"))
check("permissions on a single project", again.permissions["group_access"]["access_level"] == 50)

# Members and members/all
p.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
g.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.MAINTAINER})
check("project.members.list", u.id in [m.id for m in p.members.list()])
best = {m.id: m.access_level for m in p.members_all.list(get_all=True)}
check("project.members_all.list takes the highest level", best.get(u.id) == 40)

# Snippets
s = p.snippets.create({"title": "py snippet", "file_name": "a.py", "content": "print(1)\n", "visibility": "private"})
check("project snippet raw", p.snippets.get(s.id).content() == b"print(1)\n")

# A real repository: push with git, then read it through the API
repo = os.path.join(workdir, "repo")
auth = p.http_url_to_repo.replace("http://", f"http://root:{token}@")
subprocess.run(["git", "clone", "-q", auth, repo], check=True)
with open(os.path.join(repo, "README.md"), "w") as f:
    f.write("hello\n")
env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
subprocess.run(["git", "-C", repo, "add", "README.md"], check=True)
subprocess.run(["git", "-C", repo, "commit", "-qm", "first"], check=True, env=env)
subprocess.run(["git", "-C", repo, "push", "-q", "origin", "HEAD:main"], check=True)
subprocess.run(["git", "-C", repo, "checkout", "-qb", "feature"], check=True)
with open(os.path.join(repo, "b.txt"), "w") as f:
    f.write("b\n")
subprocess.run(["git", "-C", repo, "add", "b.txt"], check=True)
subprocess.run(["git", "-C", repo, "commit", "-qm", "feature"], check=True, env=env)
subprocess.run(["git", "-C", repo, "push", "-q", "origin", "feature"], check=True)

# Merge requests on the pushed repository
mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "py mr"})
check("mergerequests.create", mr.iid == 1)
check("mr.changes()", [c["new_path"] for c in mr.changes()["changes"]] == ["b.txt"])
check("mr.diffs.list... via commits", len(list(mr.commits())) == 1)
check("mr.approvals.get() before any approval", mr.approvals.get().approved_by == [])
as_dev = gitlab.Gitlab(url, private_token=user_token)
dev_mr = as_dev.projects.get(p.id, lazy=True).mergerequests.get(mr.iid)
dev_mr.approve(sha=dev_mr.sha)
check("mr.approve() by a Developer", [a["user"]["username"] for a in mr.approvals.get().approved_by] == ["py-user"])
dev_mr.unapprove()
check("mr.unapprove()", mr.approvals.get().approved_by == [])
state = mr.approval_state.get()
check("mr.approval_state.get()", state.rules == [] and state.approval_rules_overwritten is False)
# python-gitlab's mr.diffs are GitLab's diff versions (GET .../versions)
versions = mr.diffs.list()
check("mr.diffs.list() (diff versions)", [v.head_commit_sha for v in versions] == [mr.sha])
version = mr.diffs.get(versions[0].id)
check("mr.diffs.get(id) (a version with its commits and diffs)",
      [d["new_path"] for d in version.diffs] == ["b.txt"] and len(version.commits) == 1)
rule = mr.approval_rules.create({"name": "py rule", "approvals_required": 0, "user_ids": [u.id]})
check("mr.approval_rules.create()", rule.name == "py rule" and rule.eligible_approvers[0]["username"] == "py-user")
rule.name = "py rule 2"
rule.save()
check("approval rule .save() and mr.approval_rules.get()", mr.approval_rules.get(rule.id).name == "py rule 2")
check("mr.approval_rules.list()", [r.name for r in mr.approval_rules.list()] == ["py rule 2"])
check("approval_state after a rule of its own", mr.approval_state.get().approval_rules_overwritten is True)
rule.delete()
check("approval rule .delete()", mr.approval_rules.list() == [])
mr.merge()
check("mr.merge()", p.mergerequests.get(mr.iid).state == "merged")
# Notes: the comments people write and the system notes svc writes (approve, unapprove, merge)
note = mr.notes.create({"body": "py comment"})
check("mr.notes.create()", note.body == "py comment" and note.system is False)
note.body = "py comment edited"
note.save()
check("note .save() and mr.notes.get()", mr.notes.get(note.id).body == "py comment edited")
system = [n.body for n in mr.notes.list(sort="asc", get_all=True) if n.system]
check("mr.notes.list() has the system notes",
      system == ["approved this merge request", "unapproved this merge request", "merged"])
note.delete()
check("note .delete()", [n.id for n in mr.notes.list(get_all=True) if n.id == note.id] == [])

# Error tracking client keys
p.error_tracking.update({"active": True, "integrated": True}) if hasattr(p, "error_tracking") else None
keys = gl.http_get(f"/projects/{p.id}/error_tracking/client_keys")
check("error tracking client keys", isinstance(keys, list))

# Pagination over more than 100 items: offset (projects) and keyset (users)
for i in range(105):
    gl.projects.create({"name": f"bulk-{i:03d}", "namespace_id": g.id})
listed = g.projects.list(get_all=True, per_page=50)
check("offset pagination over 105 projects (get_all)", len(listed) == 105)
seen = [x.id for x in gl.users.list(pagination="keyset", order_by="id", per_page=1, iterator=True)]
check("keyset pagination over users (iterator)", len(seen) == len(set(seen)) and u.id in seen)

# Storage moves (self-managed, admin; python-gitlab 3.12 has no manager for them: its generic requests)
source = gl.projects.get(p.id).repository_storage
target = "other" if source == "default" else "default"
move = gl.http_post(f"/projects/{p.id}/repository_storage_moves", post_data={"destination_storage_name": target})
check("schedule a project repository storage move", move["state"] in ("scheduled", "started", "finished"))
import time
for _ in range(150):
    move = gl.http_get(f"/projects/{p.id}/repository_storage_moves/{move['id']}")
    if move["state"] in ("finished", "failed"):
        break
    time.sleep(0.2)
check("the move finishes and the project is on the new storage",
      move["state"] == "finished" and gl.projects.get(p.id).repository_storage == target)
moves = gl.http_get("/project_repository_storage_moves")
check("project_repository_storage_moves list", move["id"] in [m["id"] for m in moves])

# Runners: created as GitLab 16+ does (POST /user/runners), then through python-gitlab's runner managers
created = gl.http_post("/user/runners", post_data={"runner_type": "instance_type", "description": "py runner"})
runner = gl.runners.get(created["id"])
check("runners.get", runner.description == "py runner")
runner.description = "py runner 2"
runner.save()
check("runner .save()", gl.runners.get(created["id"]).description == "py runner 2")
check("runners.all()", created["id"] in [r.id for r in gl.runners.all(get_all=True)])
gl.runners.verify(created["token"])
raises("runners.verify with a wrong token", gle.GitlabVerifyError, lambda: gl.runners.verify("glrt-wrong"))
gl.runners.delete(created["id"])
raises("deleted runner", gle.GitlabGetError, lambda: gl.runners.get(created["id"]))

# Exceptions: 401, 403, 404
raises("bad token", gle.GitlabAuthenticationError, lambda: gitlab.Gitlab(url, private_token="nope").auth())
as_user = gitlab.Gitlab(url, private_token=user_token)
raises("non-admin creating a user", gle.GitlabCreateError, lambda: as_user.users.create({"username": "x", "email": "x@example.com", "name": "x", "password": "x-password-123"}))
raises("missing project", gle.GitlabGetError, lambda: gl.projects.get(999999))

# Deleting: project, non-empty group (202, in the background), user
gl.projects.delete(p.id)
raises("deleted project", gle.GitlabGetError, lambda: gl.projects.get(p.id))
gl.groups.delete(g.id)
import time
for _ in range(100):
    try:
        gl.groups.get(g.id)
        time.sleep(0.2)
    except gle.GitlabGetError:
        break
raises("deleted non-empty group", gle.GitlabGetError, lambda: gl.groups.get(g.id))
gl.users.delete(u.id)
raises("deleted user", gle.GitlabGetError, lambda: gl.users.get(u.id))

failed = [n for n, ok in checks if not ok]
print(f"{len(checks) - len(failed)} of {len(checks)} checks passed")
sys.exit(1 if failed else 0)
