/** Path rules shared by users, groups and projects (their paths share one URL space). */

/** Valid path segment for users, groups and projects (GitLab's rules, simplified). */
export const PATH_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$/;

/** Turns a name into a path, as GitLab does when only `name` is given. */
export function pathFromName(name: string): string {
  return name
    .trim()
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .toLowerCase();
}
