import {
  decodedMappings,
  GREATEST_LOWER_BOUND,
  LEAST_UPPER_BOUND,
  originalPositionFor,
  sourceContentFor,
  TraceMap,
} from '@jridgewell/trace-mapping';
import { normalizeDebugId } from './artifact-bundle.js';
import type { Frame } from './events.js';

/**
 * JavaScript frames back to their sources, at read time (so maps uploaded after an event still apply): a frame's
 * file is found by the debug ID the event's `debug_meta.images[]` gives its `abs_path`, or by its URL (`abs_path`,
 * or `~/path`) among the files uploaded for the event's release; the source map then gives the original file,
 * line, column, function and code lines. The minified frame stays beside the original.
 */

/** An uploaded file, as symbolication needs it. */
export interface ArtifactFile {
  readonly id: number;
  readonly url: string;
  readonly type: string;
  readonly debugId: string | null;
  readonly sourcemap: string | null;
  readonly content: string;
}

/** Where uploaded files are found (the artifact repository, per project). */
export interface ArtifactLookup {
  byDebugId(projectId: number, debugId: string): Promise<ArtifactFile[]>;
  byUrls(projectId: number, release: string, urls: readonly string[]): Promise<ArtifactFile[]>;
}

/** A frame as shown: the original position when a source map resolved it, with the minified frame beside it. */
export interface ResolvedFrame extends Frame {
  /** The frame as the SDK sent it, when this one was resolved through a source map; else null or absent. */
  readonly minified?: Frame | null;
}

const CONTEXT_LINES = 5;
/** Frames resolved per event at most (deeper stacks keep their minified frames beyond). */
const MAX_FRAMES = 250;
/** Mapping segments walked back to find a frame's function name. */
const MAX_NAME_SCAN = 20_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The event's `debug_meta.images[]` of type `sourcemap`: code file (the script's URL) to debug ID. */
export function sourcemapImages(payload: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const meta = payload.debug_meta;
  const images = isObject(meta) && Array.isArray(meta.images) ? meta.images : [];
  for (const img of images) {
    if (!isObject(img) || img.type !== 'sourcemap' || typeof img.code_file !== 'string') continue;
    const id = normalizeDebugId(img.debug_id);
    if (id) out.set(img.code_file, id);
  }
  return out;
}

/** The names a file may be uploaded under for a frame's URL: the URL itself and `~/path` (any host). */
/**
 * The script URL of a frame: its `abs_path`, or its `filename` when that is a URL, as the browser SDKs send it
 * (`@sentry/browser` puts the script's URL in `filename` and sends no `abs_path`; Relay copies it over).
 */
export function frameUrl(f: Pick<Frame, 'absPath' | 'filename'>): string | null {
  if (f.absPath) return f.absPath;
  return f.filename && /^[a-z][a-z0-9+.-]*:\/\//i.test(f.filename) ? f.filename : null;
}

export function urlCandidates(absPath: string): string[] {
  const out = [absPath];
  try {
    const u = new URL(absPath);
    out.push(`~${u.pathname}`, `~${u.pathname}${u.search}`);
  } catch {
    if (absPath.startsWith('/')) out.push(`~${absPath}`);
  }
  return [...new Set(out)];
}

/** `ref` (a map's reference) against the URL of the file that names it; `~/` URLs join like paths. */
function joinUrl(base: string, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('~/')) return ref;
  const tilde = base.startsWith('~/');
  try {
    const joined = new URL(ref, tilde ? `http://tilde${base.slice(1)}` : base).toString();
    return tilde ? `~${joined.slice('http://tilde'.length)}` : joined;
  } catch {
    return ref;
  }
}

/** The `//# sourceMappingURL=` comment of a minified file, if any. */
function sourceMappingUrl(content: string): string | null {
  const m = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/.exec(content.slice(-2000));
  return m ? m[1]! : null;
}

/** A source path as Sentry shows it: `webpack://app/./src/x.js` and `../src/x.js` become `src/x.js`. */
function displayPath(source: string): string {
  return source
    .replace(/^webpack:\/\/[^/]*\//, '')
    .replace(/^(\.\.?\/)+/, '')
    .replace(/^\/+/, '');
}

/** The file's lines, computed once per content. */
const linesOf = (text: string): string[] => text.split(/\r?\n/);

/**
 * The original name of the function a frame is in: walking the mappings back from the frame's position, the first
 * token whose minified text is the frame's (minified) function name and that carries a name (rust-sourcemap's
 * `get_original_function_name`, which Sentry's JS processing used).
 */
function originalFunctionName(
  map: TraceMap,
  minifiedLines: readonly string[],
  line: number,
  column: number,
  minifiedName: string,
): string | null {
  const mappings = decodedMappings(map);
  const names = map.names;
  // First a token that declares the name (`function t(`, `t=function`, `t=(`, `t:function`); a minifier may reuse
  // a short name for a local inside the function. Then any token of that text, as rust-sourcemap does.
  for (const declaring of [true, false]) {
    let scanned = 0;
    for (let l = Math.min(line, mappings.length - 1); l >= 0 && scanned < MAX_NAME_SCAN; l--) {
      const segments = mappings[l] ?? [];
      const text = minifiedLines[l] ?? '';
      for (let i = segments.length - 1; i >= 0 && scanned < MAX_NAME_SCAN; i--, scanned++) {
        const seg = segments[i]!;
        if (l === line && seg[0] > column) continue;
        if (seg.length !== 5 || !text.startsWith(minifiedName, seg[0])) continue;
        const after = text.slice(seg[0] + minifiedName.length, seg[0] + minifiedName.length + 24);
        if (/^[\w$]/.test(after)) continue;
        if (declaring && !declares(text.slice(Math.max(0, seg[0] - 16), seg[0]), after)) continue;
        return names[seg[4]] ?? null;
      }
    }
  }
  return null;
}

/** Whether the text around a name declares a function of that name. */
function declares(before: string, after: string): boolean {
  return (
    /(?:function\*?|class)\s*$/.test(before) ||
    /^\s*[=:]\s*(?:async\s*)?(?:function\b|\(|[\w$]+\s*=>)/.test(after)
  );
}

/** Parsed maps by file id (files never change once stored), the most recently used kept. */
class MapCache {
  private readonly entries = new Map<number, TraceMap>();
  constructor(private readonly capacity: number) {}

  get(file: ArtifactFile): TraceMap | null {
    const hit = this.entries.get(file.id);
    if (hit) {
      this.entries.delete(file.id);
      this.entries.set(file.id, hit);
      return hit;
    }
    let map: TraceMap;
    try {
      map = new TraceMap(file.content);
    } catch {
      return null;
    }
    this.entries.set(file.id, map);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return map;
  }
}

/** What one frame resolves against: its map and, when known, its minified file. */
interface Target {
  readonly map: ArtifactFile;
  readonly minified: ArtifactFile | null;
}

export class Symbolicator {
  private readonly maps = new MapCache(32);
  private readonly minifiedLines = new Map<number, string[]>();

  constructor(private readonly lookup: ArtifactLookup) {}

  /** The event's frames (caller first), JavaScript ones resolved where an uploaded source map covers them. */
  async frames(
    projectId: number,
    payload: Record<string, unknown>,
    frames: readonly Frame[],
  ): Promise<ResolvedFrame[]> {
    const images = sourcemapImages(payload);
    const release = typeof payload.release === 'string' && payload.release !== '' ? payload.release : null;
    const targets = new Map<string, Promise<Target | null>>();
    const targetFor = (absPath: string) => {
      let t = targets.get(absPath);
      if (!t) {
        t = this.target(projectId, release, absPath, images.get(absPath) ?? null);
        targets.set(absPath, t);
      }
      return t;
    };
    return Promise.all(
      frames.map(async (f, i): Promise<ResolvedFrame> => {
        const url = frameUrl(f);
        if (i >= MAX_FRAMES || !url || f.lineNo === null) return { ...f, minified: null };
        const target = await targetFor(url);
        return (target && this.resolve(f, url, target)) ?? { ...f, minified: null };
      }),
    );
  }

  private async target(
    projectId: number,
    release: string | null,
    absPath: string,
    debugId: string | null,
  ): Promise<Target | null> {
    if (debugId) {
      const files = await this.lookup.byDebugId(projectId, debugId);
      const map = files.find((f) => f.type === 'source_map');
      if (map) return { map, minified: files.find((f) => f.type === 'minified_source') ?? null };
    }
    if (!release) return null;
    const minified = (await this.lookup.byUrls(projectId, release, urlCandidates(absPath))).find(
      (f) => f.type !== 'source_map',
    );
    if (!minified) return null;
    if (minified.debugId) {
      const map = (await this.lookup.byDebugId(projectId, minified.debugId)).find(
        (f) => f.type === 'source_map',
      );
      if (map) return { map, minified };
    }
    const ref = minified.sourcemap ?? sourceMappingUrl(minified.content);
    if (!ref || ref.startsWith('data:')) return null;
    const mapUrl = joinUrl(minified.url, ref);
    const map = (await this.lookup.byUrls(projectId, release, urlCandidates(mapUrl))).find(
      (f) => f.type === 'source_map',
    );
    return map ? { map, minified } : null;
  }

  private linesOfMinified(file: ArtifactFile): string[] {
    let lines = this.minifiedLines.get(file.id);
    if (!lines) {
      lines = linesOf(file.content);
      this.minifiedLines.set(file.id, lines);
      // A handful of files at a time: these are whole bundles.
      while (this.minifiedLines.size > 8) this.minifiedLines.delete(this.minifiedLines.keys().next().value!);
    }
    return lines;
  }

  private resolve(f: Frame, url: string, target: Target): ResolvedFrame | null {
    const map = this.maps.get(target.map);
    if (!map || f.lineNo === null) return null;
    const line = f.lineNo;
    // Sentry's columns are 1-based, the maps' 0-based; a frame without a column means its line's start.
    const column = f.colNo !== null ? Math.max(0, f.colNo - 1) : 0;
    let pos = originalPositionFor(map, { line, column, bias: GREATEST_LOWER_BOUND });
    if (pos.source === null) pos = originalPositionFor(map, { line, column, bias: LEAST_UPPER_BOUND });
    if (pos.source === null || pos.line === null) return null;
    const minifiedName = f.function?.split('.').pop() ?? null;
    const name =
      minifiedName && target.minified
        ? originalFunctionName(map, this.linesOfMinified(target.minified), line - 1, column, minifiedName)
        : null;
    const content = sourceContentFor(map, pos.source);
    const context: [number, string][] = [];
    if (content !== null) {
      const lines = linesOf(content);
      const from = Math.max(1, pos.line - CONTEXT_LINES);
      const to = Math.min(lines.length, pos.line + CONTEXT_LINES);
      for (let n = from; n <= to; n++) context.push([n, lines[n - 1]!]);
    }
    const absPath = joinUrl(url, pos.source);
    return {
      filename: displayPath(pos.source),
      absPath,
      // Without the enclosing function's name, the frame keeps its own: the name mapped at a call site is the callee's.
      function: name ?? f.function,
      module: f.module,
      lineNo: pos.line,
      colNo: pos.column + 1,
      inApp: f.inApp,
      context,
      minified: f,
    };
  }
}
