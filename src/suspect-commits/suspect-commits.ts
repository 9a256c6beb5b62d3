import { posix } from 'node:path';
import type { Frame } from '../error-tracking/events.js';
import type { Commit } from '../git/commits.js';
import type { MergeRequest } from '../merge-requests/merge-requests.js';
import type { OncallSchedule } from '../oncall/oncall.js';
import type { User } from '../users/users.js';

/**
 * An error's suspect commit (Sentry's "suspect commits", found through the stack trace): the commit that last changed
 * the line of the error's culprit frame, in the release the error's latest event names, with the merge request that
 * merged it.
 */
export interface SuspectCommit {
  readonly commit: Commit;
  /** The culprit frame's file as a path of the repository, and its line there (as of the release). */
  readonly path: string;
  readonly line: number;
  /** The svc user the commit is by: the one with the author's e-mail, else the merge request's author. */
  readonly author: User | null;
  /** The schedules that have `author` on call now for the error's project; empty when nobody or off duty. */
  readonly authorOnCall: readonly OncallSchedule[];
  readonly mergeRequest: {
    readonly mr: MergeRequest;
    readonly author: User | null;
    readonly approvedBy: readonly User[];
  } | null;
}

/** A SHA-1 or SHA-256 object name, whole or abbreviated (git's shortest is 4; releases use 7 and more). */
const HEX = /^[0-9a-f]{7,64}$/i;

/**
 * The commit names a release string may carry, most specific first: the whole release (`3f2a9c1`), what follows the
 * last `@` (`web@3f2a9c1`), what follows `+` (`web@1.2.0+3f2a9c1`, SemVer build metadata) and a `git describe`
 * suffix (`v1.2.0-4-g3f2a9c1`). An all-digit name shorter than 12 is left out: versions such as `app@2024061`
 * are hex too.
 */
export function releaseCommitNames(release: string): string[] {
  const r = release.trim();
  const names = [
    r,
    r.slice(r.lastIndexOf('@') + 1),
    r.includes('+') ? r.slice(r.lastIndexOf('+') + 1) : '',
    /-g([0-9a-f]{7,64})$/i.exec(r)?.[1] ?? '',
  ].filter((n) => HEX.test(n) && (/[a-f]/i.test(n) || n.length >= 12));
  return [...new Set(names.map((n) => n.toLowerCase()))];
}

/**
 * The frame an error is blamed on: the last in-app frame with a line (Sentry's frames run from the outermost call to
 * the one that raised). When no frame says whether it is in-app, the last frame with a line.
 */
export function culpritFrame(frames: readonly Frame[]): Frame | null {
  const withLine = frames.filter((f) => f.lineNo !== null && f.lineNo > 0 && (f.absPath || f.filename));
  const marked = frames.some((f) => f.inApp !== null);
  const pick = marked ? withLine.filter((f) => f.inApp === true) : withLine;
  return pick[pick.length - 1] ?? null;
}

/**
 * A frame's path as the deployment saw it, reduced to a relative path: without a URL's origin (`https://cdn/...`),
 * `webpack://`, `app://`, `file://`, a query or fragment, `./` and `..` segments, leading slashes, Windows
 * separators. What is left may still carry a deployment prefix (`app/`, `srv/releases/42/`): matching against the
 * repository's files takes care of those.
 */
export function framePath(raw: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  p = p.replace(/[?#].*$/, '');
  p = p.replace(/^~\//, '/');
  const normal = posix.normalize(`/${p}`);
  return normal.replace(/^\/+/, '').replace(/\/+$/, '');
}

/** The paths to try for a frame, best first: its absolute path, its file name, its module as a path. */
function frameCandidates(frame: Frame): string[] {
  const out: string[] = [];
  for (const raw of [frame.absPath, frame.filename]) if (raw) out.push(framePath(raw));
  const ext = /\.[a-z0-9]+$/i.exec(frame.filename ?? frame.absPath ?? '')?.[0];
  if (frame.module && ext && /^[\w$]+(\.[\w$]+)+$/.test(frame.module))
    out.push(`${frame.module.replace(/\./g, '/')}${ext}`);
  return [...new Set(out.filter((p) => p !== ''))];
}

/**
 * The file of the repository a frame points at, among `files` (a commit's paths): the one sharing the most trailing
 * path components with one of the frame's paths, where either the whole file path is matched (the frame's path
 * carries a deployment prefix: `/app/src/a.js` is `src/a.js`) or the whole frame path is (a bare `models/a.rb` is
 * `lib/models/a.rb`). A whole file path wins a tie; two files left tied are ambiguous. Null when nothing matches.
 */
export function repositoryPathOf(frame: Frame, files: readonly string[]): string | null {
  let best: { file: string; score: number; whole: boolean; tied: boolean } | null = null;
  for (const candidate of frameCandidates(frame)) {
    const c = candidate.split('/');
    for (const file of files) {
      const f = file.split('/');
      let common = 0;
      while (common < c.length && common < f.length && c[c.length - 1 - common] === f[f.length - 1 - common])
        common++;
      const whole = common === f.length;
      if (common === 0 || !(whole || common === c.length)) continue;
      const better = best === null || common > best.score || (common === best.score && whole && !best.whole);
      if (better) best = { file, score: common, whole, tied: false };
      else if (best && file !== best.file && common === best.score && whole === best.whole) best.tied = true;
    }
  }
  return best && !best.tied ? best.file : null;
}
