// Types of scripts/build-if-stale.mjs for the TypeScript that imports it (test/integration/cli-first-start.test.ts).

/** Input files and folders of the build, relative to the repository root. */
export const INPUTS: readonly string[];
/** Files the build writes; a missing one makes the build stale. */
export const OUTPUTS: readonly string[];
/** Where a finished build records what it was built from. */
export const STAMP: string;
/** Every input file under `root` with `[size, mtimeMs]`. */
export function snapshot(root: string): Record<string, [number, number]>;
/** Why the build in `root` is stale, or null when it is up to date. */
export function staleReason(root: string): string | null;
/** `prebuild`: removes the stamp and notes what the build starts from. */
export function begin(root: string): void;
/** `postbuild`: the noted inputs become the stamp. */
export function end(root: string): void;
