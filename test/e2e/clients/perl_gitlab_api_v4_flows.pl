# Drives svc with Debian's GitLab::API::v4 (libgitlab-api-v4-perl) the way its users do; prints one line per
# check (a failing call names the client, the call and svc's answer) and exits 1 on failure.
# Usage: perl perl_gitlab_api_v4_flows.pl URL ROOT_TOKEN
use strict;
use warnings;
use GitLab::API::v4;
use JSON::PP ();
use MIME::Base64 qw(decode_base64);

my ($url, $token) = @ARGV;
my $client = "GitLab::API::v4 $GitLab::API::v4::VERSION";
my $api = GitLab::API::v4->new(url => "$url/api/v4", private_token => $token);
my ($passed, $failed) = (0, 0);

sub check {
    my ($name, $ok, $detail) = @_;
    if ($ok) { $passed++; print "ok   $client: $name\n"; }
    else { $failed++; print "FAIL $client: $name" . (defined $detail ? " ($detail)" : '') . "\n"; }
}

# Runs one call; a failure (the module dies with svc's status and body) is reported with the call's name.
sub call {
    my ($name, $fn) = @_;
    my $result = eval { $fn->() };
    if ($@) { check($name, 0, "svc answered: $@"); return undef; }
    return $result;
}

# A call that must fail with `$status`.
sub refused {
    my ($name, $status, $fn) = @_;
    eval { $fn->() };
    my $err = "$@";
    check("$name is refused with $status", $err =~ /\b$status\b/, $err eq '' ? 'it succeeded' : "svc answered: $err");
}

my $me = call('current_user', sub { $api->current_user() });
check('current_user is root', $me && $me->{username} eq 'root');
my $version = call('version', sub { $api->version() });
check('version', $version && $version->{version});

# create_user returns nothing (the module does not decode its answer): look the user up by username.
call('create_user', sub {
    $api->create_user({ username => 'pl-user', email => 'pl@example.com', name => 'Pl User', password => 'pl-user-password-1' });
});
my $found = call('users(username)', sub { $api->users({ username => 'pl-user' }) });
check('create_user, then users({username})', $found && @$found == 1);
my $user = $found && $found->[0] ? $found->[0] : { id => 0 };
check('user', (call('user', sub { $api->user($user->{id}) }) // {})->{name} eq 'Pl User');

# create_group returns nothing (the module does not decode its answer): read it back by path.
call('create_group', sub { $api->create_group({ name => 'pl-group', path => 'pl-group' }) });
my $group = call('group(path)', sub { $api->group('pl-group') });
check('create_group, then group(path)', $group && $group->{full_path} eq 'pl-group');
call('add_group_member', sub { $api->add_group_member($group->{id}, { user_id => $user->{id}, access_level => 30 }) });
my $gmembers = call('group_members', sub { $api->group_members($group->{id}) });
check('add_group_member, group_members', $gmembers && grep { $_->{id} == $user->{id} && $_->{access_level} == 30 } @$gmembers);

my $project = call('create_project', sub { $api->create_project({ name => 'pl-app', namespace_id => $group->{id} }) });
check('create_project', $project && $project->{path_with_namespace} eq 'pl-group/pl-app');
call('edit_project', sub { $api->edit_project($project->{id}, { description => 'from perl', merge_method => 'ff' }) });
my $again = call('project', sub { $api->project('pl-group/pl-app') });
check('edit_project, then project(path)', $again && $again->{description} eq 'from perl' && $again->{merge_method} eq 'ff');
my $listed = call('group_projects', sub { $api->group_projects($group->{id}) });
check('group_projects', $listed && grep { $_->{id} == $project->{id} } @$listed);
my $all = call('all_project_members', sub { $api->all_project_members($project->{id}) });
check('all_project_members (inherited from the group)', $all && grep { $_->{id} == $user->{id} } @$all);

call('create_project_snippet', sub {
    $api->create_project_snippet($project->{id}, { title => 'pl', file_name => 'a.pl', content => "print 1;\n", visibility => 'private' });
});
my $snippets = call('project_snippets', sub { $api->project_snippets($project->{id}) });
check('create_project_snippet, project_snippets', $snippets && @$snippets == 1);
# project_snippet_content is left out: the module itself dies before sending it ("Redundant argument in sprintf"
# in its RESTClient on Debian's Perl), whatever the server.

# The repository through the API: a project made with a README; files, branches, commits, the tree, compare.
my $repo = call('create_project (initialize_with_readme)', sub {
    $api->create_project({ name => 'pl-repo', namespace_id => $group->{id}, initialize_with_readme => JSON::PP::true });
});
check('create_project with a README: not empty', $repo && !$repo->{empty_repo});
my $rid = $repo ? $repo->{id} : 0;
my $tree = call('tree', sub { $api->tree($rid) });
check('tree', $tree && join(',', map { $_->{path} } @$tree) eq 'README.md');
my $readme = call('file(README.md)', sub { $api->file($rid, 'README.md', { ref => 'main' }) });
check('file (base64 content)', $readme && decode_base64($readme->{content}) =~ /^# pl-repo/);
# create_file and edit_file answer nothing (the module does not decode the answer): read the file back.
call('create_file', sub {
    $api->create_file($rid, 'docs/pl.md', { branch => 'main', content => "from perl\n", commit_message => 'pl add' });
});
check('create_file, then raw_file', (call('raw_file', sub { $api->raw_file($rid, 'docs/pl.md', { ref => 'main' }) }) // '') eq "from perl\n");
call('edit_file', sub {
    $api->edit_file($rid, 'docs/pl.md', { branch => 'main', content => "edited by perl\n", commit_message => 'pl edit' });
});
check('edit_file, then raw_file', (call('raw_file', sub { $api->raw_file($rid, 'docs/pl.md', { ref => 'main' }) }) // '') eq "edited by perl\n");
my $branch = call('create_branch', sub { $api->create_branch($rid, { branch => 'pl-topic', ref => 'main' }) });
check('create_branch', $branch && $branch->{name} eq 'pl-topic');
check('branch', (call('branch', sub { $api->branch($rid, 'pl-topic') }) // {})->{name} eq 'pl-topic');
my $commit = call('create_commit (actions)', sub {
    $api->create_commit($rid, {
        branch => 'pl-topic', commit_message => 'pl commit',
        actions => [
            { action => 'create', file_path => 'pl.txt', content => "pl\n" },
            { action => 'delete', file_path => 'docs/pl.md' },
        ],
    });
});
check('create_commit with two actions', $commit && $commit->{title} eq 'pl commit');
my $commits = call('commits(ref_name)', sub { $api->commits($rid, { ref_name => 'pl-topic' }) });
check('commits', $commits && $commit && $commits->[0]->{id} eq $commit->{id});
check('commit', $commit && (call('commit', sub { $api->commit($rid, $commit->{id}) }) // {})->{stats}->{total} == 2);
my $diff = $commit ? call('commit_diff', sub { $api->commit_diff($rid, $commit->{id}) }) : undef;
check('commit_diff', $diff && join(',', sort map { $_->{new_path} } @$diff) eq 'docs/pl.md,pl.txt');
my $cmp = call('compare', sub { $api->compare($rid, { from => 'main', to => 'pl-topic' }) });
check('compare', $cmp && @{ $cmp->{commits} } == 1 && @{ $cmp->{diffs} } == 2);
my $branches = call('branches', sub { $api->branches($rid) });
check('branches', $branches && join(',', map { $_->{name} } @$branches) eq 'main,pl-topic');
call('delete_branch', sub { $api->delete_branch($rid, 'pl-topic') });
refused('the deleted branch', 404, sub { $api->branch($rid, 'pl-topic') });
call('delete_file', sub { $api->delete_file($rid, 'docs/pl.md', { branch => 'main', commit_message => 'pl remove' }) });
refused('the deleted file', 404, sub { $api->file($rid, 'docs/pl.md', { ref => 'main' }) });

# Issues and incidents, with notes.
my $issue = call('create_issue', sub { $api->create_issue($rid, { title => 'pl incident', issue_type => 'incident', description => 'down' }) });
check('create_issue (an incident)', $issue && $issue->{issue_type} eq 'incident' && $issue->{state} eq 'opened');
my $iid = $issue ? $issue->{iid} : 0;
my $note = call('create_issue_note', sub { $api->create_issue_note($rid, $iid, { body => 'from perl' }) });
check('create_issue_note', $note && $note->{body} eq 'from perl');
my $notes = call('issue_notes', sub { $api->issue_notes($rid, $iid) });
check('issue_notes', $notes && grep { $_->{body} eq 'from perl' } @$notes);
my $closed = call('edit_issue (state_event close)', sub { $api->edit_issue($rid, $iid, { state_event => 'close' }) });
check('edit_issue closes it', $closed && $closed->{state} eq 'closed');
my $issues = call('issues(state)', sub { $api->issues($rid, { state => 'closed' }) });
check('issues', $issues && join(',', map { $_->{iid} } @$issues) eq "$iid");
call('delete_issue', sub { $api->delete_issue($rid, $iid) });
refused('the deleted issue', 404, sub { $api->issue($rid, $iid) });

# A project hook with GitLab's event flags.
my $hook = call('create_project_hook', sub {
    $api->create_project_hook($rid, { url => 'http://no-such-host.invalid/pl', push_events => JSON::PP::false, merge_requests_events => JSON::PP::true, note_events => JSON::PP::true });
});
check('create_project_hook with flags', $hook && !$hook->{push_events} && $hook->{merge_requests_events} && $hook->{note_events});
my $hooks = call('project_hooks', sub { $api->project_hooks($rid) });
check('project_hooks', $hooks && @$hooks == 1);

# Pagination: the paginator walks page and per_page.
for my $i (1 .. 25) { call("create_project bulk-$i", sub { $api->create_project({ name => "pl-bulk-$i", namespace_id => $group->{id} }) }) }
my $walked = call('paginator(group_projects)', sub { $api->paginator('group_projects', $group->{id}, { per_page => 10 })->all() });
check('paginator over 27 projects', $walked && @$walked == 27, $walked ? scalar(@$walked) . ' projects' : undef);

refused('project 999999', 404, sub { $api->project(999999) });
my $bad = GitLab::API::v4->new(url => "$url/api/v4", private_token => 'nope');
refused('a bad token', 401, sub { $bad->current_user() });

call('delete_project', sub { $api->delete_project($project->{id}) });
refused('the deleted project', 404, sub { $api->project($project->{id}) });
call('delete_group', sub { $api->delete_group($group->{id}) });
call('delete_user', sub { $api->delete_user($user->{id}) });
refused('the deleted user', 404, sub { $api->user($user->{id}) });

print "$passed of " . ($passed + $failed) . " checks passed\n";
exit($failed ? 1 : 0);
