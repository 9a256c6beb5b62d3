/** Longest snippet file name (GitLab: `file_name` is at most 255 characters). */
const MAX_SNIPPET_FILE_NAME = 255;

/**
 * Code points git ignores when it compares a path with `.git` on HFS+ (git's `is_hfs_dotgit`): a name that
 * holds them still reaches `.git` on such a checkout.
 */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Whether a name is, or is read by some checkout as, `.git`: any case, trailing dots and spaces (Windows drops
 * them), the 8.3 short name `git~1` (NTFS), HFS+'s ignorable code points. git's own `verify_path` refuses
 * these in a tree it checks out.
 */
function isDotGit(name: string): boolean {
  const folded = name
    .replace(HFS_IGNORABLE, '')
    .replace(/[. ]+$/, '')
    .toLowerCase();
  return folded === '.git' || folded === 'git~1';
}

/**
 * Why a snippet file name is refused, or null when it is fine. A snippet's file is the one entry of its
 * repository's tree, so the name must be one plain path component (GitLab's and Gitaly's rules for a file
 * path: not blank, at most 255 characters, no `..` or `.git` component, no control characters) and, as svc
 * snippets hold one file at the root, no directory separators.
 */
export function snippetFileNameProblem(name: string): string | null {
  if (name.trim() === '') return "can't be blank";
  if ([...name].length > MAX_SNIPPET_FILE_NAME) {
    return `is too long (maximum is ${MAX_SNIPPET_FILE_NAME} characters)`;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(name)) return "can't contain control characters (newline, tab, ...)";
  if (/[/\\]/.test(name)) return "can't contain directories (/ or \\)";
  if (name === '.' || name === '..') return 'is invalid';
  if (isDotGit(name)) return "can't be .git";
  return null;
}
