import MarkdownIt from 'markdown-it';

// GitLab Flavored Markdown as far as markdown-it's CommonMark with tables and strikethrough reaches. Raw HTML is off
// (`html: false`: a <script> in a description is shown as text), and markdown-it's link validation refuses
// `javascript:`, `vbscript:`, `file:` and non-image `data:` URLs, which then stay text. Links open in a new tab
// without access to this page.
// Single newlines break lines, as the incident header svc writes (one `**Field:** value` per line) expects.
const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

/** What a rendering may link to: GitLab's `^alert#N` references become links to the project's alerts. */
export interface MarkdownEnv {
  readonly alertPath?: (iid: string) => string;
}

md.inline.ruler.before('emphasis', 'alert_reference', (state, silent) => {
  const env = state.env as MarkdownEnv;
  if (!env.alertPath || state.src.charCodeAt(state.pos) !== 0x5e /* ^ */) return false;
  const match = /^\^alert#(\d{1,10})/.exec(state.src.slice(state.pos));
  if (!match) return false;
  if (!silent) {
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', env.alertPath(match[1]!)]];
    state.push('text', '', 0).content = match[0];
    state.push('link_close', 'a', -1);
  }
  state.pos += match[0].length;
  return true;
});

const defaultLinkOpen =
  md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  // Links out open in a new tab without access to this page; references inside svc stay in the tab.
  if (!String(token.attrGet('href') ?? '').startsWith('/')) {
    token.attrSet('target', '_blank');
    token.attrSet('rel', 'noopener noreferrer nofollow');
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Renders Markdown to HTML with raw HTML disabled and unsafe links refused (markdown-it escapes everything else). */
export function renderMarkdown(text: string, env: MarkdownEnv = {}): string {
  return md.render(text, { ...env });
}

/** A block of Markdown (incident descriptions, comments), rendered safely. */
export function Markdown({
  text,
  className = 'markdown',
  env,
}: {
  readonly text: string;
  readonly className?: string;
  readonly env?: MarkdownEnv;
}) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it output with html disabled and link validation on.
  return <div className={className} dangerouslySetInnerHTML={{ __html: renderMarkdown(text, env) }} />;
}
