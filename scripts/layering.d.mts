// Types of scripts/layering.mjs for the TypeScript that imports it (test/architecture.test.ts).

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export type RuleId =
  | 'feature-imports-http'
  | 'foreign-repository'
  | 'repository-imports-service'
  | 'api-imports-repository'
  | 'infrastructure-imports-feature'
  | 'ui-imports-server'
  | 'ui-copies-entity'
  | 'folder-cycle';

export interface Violation {
  readonly rule: RuleId;
  readonly from: string;
  readonly spec: string;
  /** `from -> spec`: how an allow-list names it. */
  readonly key: string;
}

export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly spec: string;
  readonly external: boolean;
}

export declare const SHELLS: ReadonlySet<string>;
export declare const INFRA: ReadonlySet<string>;
export declare const COMPOSITION: ReadonlySet<string>;
export declare const RULES: Readonly<Record<RuleId, string>>;
export declare const RESPONSE_HELPERS: readonly string[];
export declare function readSources(srcDir: string): SourceFile[];
export declare function nodeOf(path: string): string;
export declare function importsOf(files: readonly SourceFile[]): Edge[];
export declare function analyze(files: readonly SourceFile[]): {
  nodes: number;
  cycles: string[][];
  violations: Violation[];
};
