/** Parsing `git diff` output into GitLab's Diff objects. */
export interface FileDiff {
  readonly old_path: string;
  readonly new_path: string;
  readonly a_mode: string;
  readonly b_mode: string;
  readonly new_file: boolean;
  readonly renamed_file: boolean;
  readonly deleted_file: boolean;
  readonly generated_file: boolean;
  readonly diff: string;
}

/** Splits `git diff` output (with its a/ and b/ prefixes) into one Diff object per file. */
export function parseDiff(patch: string): FileDiff[] {
  const out: FileDiff[] = [];
  const files = patch.split(/^diff --git /m).slice(1);
  for (const chunk of files) {
    const lines = chunk.split('\n');
    const header = /^a\/(.+) b\/(.+)$/.exec(lines[0] ?? '');
    let oldPath = header?.[1] ?? '';
    let newPath = header?.[2] ?? '';
    let aMode = '100644';
    let bMode = '100644';
    let newFile = false;
    let deleted = false;
    let renamed = false;
    let i = 1;
    for (; i < lines.length && !lines[i]!.startsWith('@@') && !lines[i]!.startsWith('Binary'); i++) {
      const [, key, value] =
        /^(new file mode|deleted file mode|old mode|new mode|index|rename from|rename to) (.+)$/.exec(
          lines[i]!,
        ) ?? [];
      if (key === 'new file mode') {
        newFile = true;
        aMode = '0';
        bMode = value!;
      } else if (key === 'deleted file mode') {
        deleted = true;
        aMode = value!;
        bMode = '0';
      } else if (key === 'old mode') aMode = value!;
      else if (key === 'new mode') bMode = value!;
      else if (key === 'index') {
        // `index <a>..<b> <mode>` when the mode did not change.
        const mode = /^[0-9a-f]+\.\.[0-9a-f]+ (\d+)$/.exec(value!)?.[1];
        if (mode) aMode = bMode = mode;
      } else if (key === 'rename from') {
        renamed = true;
        oldPath = value!;
      } else if (key === 'rename to') newPath = value!;
    }
    const body = lines.slice(i).join('\n').replace(/\n$/, '');
    out.push({
      old_path: oldPath,
      new_path: newPath,
      a_mode: aMode,
      b_mode: bMode,
      new_file: newFile,
      renamed_file: renamed,
      deleted_file: deleted,
      generated_file: false,
      diff: body === '' ? '' : `${body}\n`,
    });
  }
  return out;
}
