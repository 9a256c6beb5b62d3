# Drives svc with Debian's ruby-gitlab (the gitlab gem) the way its users do; prints one line per check and exits 1
# on failure. Usage: ruby ruby_gitlab_flows.rb URL ROOT_TOKEN
require 'gitlab'
require 'tmpdir'

url, token = ARGV
Gitlab.configure do |c|
  c.endpoint = "#{url}/api/v4"
  c.private_token = token
end
$checks = []
def check(name, ok)
  $checks << ok
  puts "#{ok ? 'ok  ' : 'FAIL'} #{name}"
end

def raises(name, klass)
  yield
  check("#{name} raises #{klass}, got nothing", false)
rescue klass
  check("#{name} raises #{klass}", true)
rescue StandardError => e
  check("#{name} raises #{klass}, got #{e.class}: #{e.message}", false)
end

check('user is root', Gitlab.user.username == 'root')
g = Gitlab.create_group('rb-group', 'rb-group')
sub = Gitlab.create_group('rb-sub', 'rb-sub', parent_id: g.id)
check('subgroup', Gitlab.group_subgroups(g.id).map(&:id) == [sub.id])
p = Gitlab.create_project('rb-app', namespace_id: sub.id)
check('project by path', Gitlab.project('rb-group/rb-sub/rb-app').id == p.id)
check('projects(owned: true)', Gitlab.projects(owned: true, per_page: 100).auto_paginate.map(&:id).include?(p.id))
Gitlab.edit_project(p.id, description: 'from ruby')
check('edit_project', Gitlab.project(p.id).description == 'from ruby')
u = Gitlab.create_user('rb@example.com', 'rb-user-password-1', 'rb-user', name: 'Rb')
check('users(username:)', Gitlab.users(username: 'rb-user').map(&:id) == [u.id])
Gitlab.add_team_member(p.id, u.id, 30)
Gitlab.add_group_member(g.id, u.id, 40)
check('team_members', Gitlab.team_members(p.id).map(&:id).include?(u.id))
check('all_members at the highest level', Gitlab.all_members(p.id).find { |m| m.id == u.id }&.access_level == 40)
s = Gitlab.create_snippet(p.id, title: 'rb', file_name: 'a.rb', content: 'puts 1', visibility: 'private')
check('project snippet content', Gitlab.snippet_content(p.id, s.id) == 'puts 1')
# gitlab 4.17 has no helper for this endpoint: its generic request method, as users of that version do.
t = Gitlab.client.post("/users/#{u.id}/personal_access_tokens", body: { name: 'rb', scopes: ['api'] })
check('personal access token', t.token.to_s.length > 10)
as_user = Gitlab.client(endpoint: "#{url}/api/v4", private_token: t.token)

# A real repository pushed with git, and a merge request on it: changes, diff versions, approvals, merge.
Dir.mktmpdir do |dir|
  env = { 'GIT_AUTHOR_NAME' => 'T', 'GIT_AUTHOR_EMAIL' => 't@example.com',
          'GIT_COMMITTER_NAME' => 'T', 'GIT_COMMITTER_EMAIL' => 't@example.com' }
  git = ->(*args) { system(env, 'git', '-C', dir, *args, exception: true) }
  system('git', 'clone', '-q', p.http_url_to_repo.sub('http://', "http://root:#{token}@"), dir, exception: true)
  File.write(File.join(dir, 'README.md'), "hello\n")
  git.call('add', 'README.md')
  git.call('commit', '-qm', 'first')
  git.call('push', '-q', 'origin', 'HEAD:main')
  git.call('checkout', '-qb', 'feature')
  File.write(File.join(dir, 'b.rb'), "puts 2\n")
  git.call('add', 'b.rb')
  git.call('commit', '-qm', 'feature')
  git.call('push', '-q', 'origin', 'feature')
end
mr = Gitlab.create_merge_request(p.id, 'rb mr', source_branch: 'feature', target_branch: 'main')
check('merge_request_changes', Gitlab.merge_request_changes(p.id, mr.iid).changes.map { |c| c['new_path'] } == ['b.rb'])
versions = Gitlab.merge_request_diff_versions(p.id, mr.iid)
check('merge_request_diff_versions', versions.map(&:head_commit_sha) == [mr.sha])
version = Gitlab.merge_request_diff_version(p.id, mr.iid, versions.first.id)
check('merge_request_diff_version', version.diffs.map { |d| d['new_path'] } == ['b.rb'] && version.commits.size == 1)
as_user.approve_merge_request(p.id, mr.iid, sha: mr.sha)
approvals = Gitlab.merge_request_approvals(p.id, mr.iid)
check('approve_merge_request', approvals.approved_by.map { |a| a['user']['username'] } == ['rb-user'])
check('merge_request_approval_state', Gitlab.merge_request_approval_state(p.id, mr.iid).approval_rules_overwritten == false)
Gitlab.accept_merge_request(p.id, mr.iid)
check('accept_merge_request', Gitlab.merge_request(p.id, mr.iid).state == 'merged')
raises('non-admin create_user', Gitlab::Error::Forbidden) { as_user.create_user('x@example.com', 'x-password-123', 'x') }
raises('bad token', Gitlab::Error::Unauthorized) { Gitlab.client(endpoint: "#{url}/api/v4", private_token: 'bad').user }
raises('missing project', Gitlab::Error::NotFound) { Gitlab.project(999_999) }
110.times { |i| Gitlab.create_project(format('rb-bulk-%03d', i), namespace_id: g.id) }
check('auto_paginate over 110 group projects', Gitlab.group_projects(g.id, per_page: 50).auto_paginate.size == 110)
Gitlab.delete_group(g.id)
gone = false
100.times do
  begin
    Gitlab.group(g.id)
    sleep 0.2
  rescue Gitlab::Error::NotFound
    gone = true
    break
  end
end
check('non-empty group deleted in the background', gone)
raises('project of the deleted group', Gitlab::Error::NotFound) { Gitlab.project(p.id) }
Gitlab.delete_user(u.id)
puts "#{$checks.count(true)} of #{$checks.size} checks passed"
exit($checks.all? ? 0 : 1)
