import {
  type FormEvent,
  Fragment,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { Page } from './api';
import { Link } from './router';
import type { Resource } from './use-resource';

/**
 * The box every table sits in. A table keeps its words whole (styles.css); where the screen is narrower than
 * that, the table scrolls sideways inside this box, in its card, rather than widening the page or breaking words
 * letter by letter. While it does scroll, the box is in the tab order, so a keyboard can scroll it, and named (a
 * group, not a landmark: the section around it is the landmark).
 */
export function TableScroll({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setScrolls(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={ref}
      className="table-scroll"
      {...(scrolls && { role: 'group', 'aria-label': label, tabIndex: 0 })}
    >
      {children}
    </div>
  );
}

/** A polite, announced loading line. */
export function Loading({ label = 'Loading…' }: { readonly label?: string }) {
  return <output className="muted">{label}</output>;
}

/** An error from the server or the network, announced to assistive technology. */
export function ErrorNotice({ message }: { readonly message: string }) {
  return (
    <div className="notice notice-error" role="alert">
      {message}
    </div>
  );
}

/** Renders a resource: loading line, error notice, or `children(data)`. */
export function ResourceView<T>({
  resource,
  children,
}: {
  readonly resource: Resource<T>;
  readonly children: (data: T) => ReactNode;
}) {
  if (resource.status === 'loading') return <Loading />;
  if (resource.status === 'error') return <ErrorNotice message={resource.message} />;
  return <>{children(resource.data)}</>;
}

// One clock for every relative time on the page: a single timer, so "5 min ago" moves on without a reload.
const nowListeners = new Set<() => void>();
let nowValue = Date.now();
let nowTimer: number | undefined;
function subscribeNow(listener: () => void): () => void {
  nowListeners.add(listener);
  if (nowTimer === undefined) {
    nowTimer = window.setInterval(() => {
      nowValue = Date.now();
      for (const l of nowListeners) l();
    }, 30_000);
  }
  return () => {
    nowListeners.delete(listener);
    if (nowListeners.size === 0 && nowTimer !== undefined) {
      window.clearInterval(nowTimer);
      nowTimer = undefined;
    }
  };
}

/** The current time in ms, updated every 30 seconds (for relative times). */
export function useNow(): number {
  return useSyncExternalStore(subscribeNow, () => nowValue);
}

/** "just now", "5 min ago", "3 hours ago", "2 days ago"; dates further away than 30 days are shown as dates. */
export function relativeTime(date: Date, now: number): string {
  const seconds = Math.round((now - date.getTime()) / 1000);
  const future = seconds < 0;
  const abs = Math.abs(seconds);
  const say = (n: number, unit: string): string => {
    const text = `${n} ${unit}${n === 1 || unit === 'min' ? '' : 's'}`;
    return future ? `in ${text}` : `${text} ago`;
  };
  if (abs < 45) return 'just now';
  if (abs < 3600) return say(Math.max(1, Math.round(abs / 60)), 'min');
  if (abs < 86_400) return say(Math.round(abs / 3600), 'hour');
  if (abs < 30 * 86_400) return say(Math.round(abs / 86_400), 'day');
  return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * A timestamp as a relative time ("5 min ago"); the absolute time in the reader's locale and in UTC shows on hover
 * (title), and assistive technology reads it after the relative one (visually hidden text). The exact value stays
 * in `dateTime`.
 */
export function Timestamp({ value }: { readonly value: string | null | undefined }) {
  const now = useNow();
  if (!value) return <span className="muted">never</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  const absolute = `${date.toLocaleString()} (${date.toISOString()})`;
  const relative = relativeTime(date, now);
  return (
    <time dateTime={value} title={absolute} className="timestamp">
      {relative}
      <span className="visually-hidden"> ({date.toLocaleString()})</span>
    </time>
  );
}

/** A success message, announced politely. */
export function SuccessNotice({ children }: { readonly children: ReactNode }) {
  return <output className="notice notice-success">{children}</output>;
}

// Inline Markdown the server writes into notes and incident descriptions: **bold** and `code`. Everything
// else stays text; React escapes it, so no HTML from a payload can ever reach the DOM.
const INLINE = /\*\*(.+?)\*\*|`([^`]+)`/g;

function renderInline(line: string, keyPrefix: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of line.matchAll(INLINE)) {
    const at = match.index ?? 0;
    if (at > last) out.push(line.slice(last, at));
    const key = `${keyPrefix}-${at}`;
    if (match[1] !== undefined) out.push(<strong key={key}>{match[1]}</strong>);
    else out.push(<code key={key}>{match[2]}</code>);
    last = at + match[0].length;
  }
  if (last < line.length) out.push(line.slice(last));
  return out;
}

/** Renders the small Markdown subset above, keeping line breaks. */
export function InlineMarkdown({ text }: { readonly text: string }) {
  const lines = text.split('\n');
  return (
    <>
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text have no better identity.
        <span key={i}>
          {i > 0 && <br />}
          {renderInline(line, String(i))}
        </span>
      ))}
    </>
  );
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-HTTP deployments have no Clipboard API: fall back to a hidden textarea and execCommand.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy failed');
}

/** A button that copies `text` and says whether it worked. */
export function CopyButton({ text, label }: { readonly text: string; readonly label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  const copy = (): void => {
    copyText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <>
      <button type="button" className="button" onClick={copy} aria-label={label} title={label}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <output className="visually-hidden">
        {state === 'copied'
          ? 'Copied to clipboard'
          : state === 'failed'
            ? 'Could not copy; select the text and copy it by hand'
            : ''}
      </output>
    </>
  );
}

/**
 * A modal confirmation (native `<dialog>`, so focus stays inside and Escape cancels). Shown while `open`;
 * `onConfirm` runs on the confirm button.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger = false,
  busy = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
}: {
  readonly open: boolean;
  readonly title: string;
  readonly children: ReactNode;
  readonly confirmLabel: string;
  readonly danger?: boolean;
  readonly busy?: boolean;
  /** Keeps the confirm button off (not Cancel) until the dialog's own check passes, such as a typed name. */
  readonly confirmDisabled?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <div className="actions">
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          className={danger ? 'button button-danger' : 'button button-primary'}
          onClick={onConfirm}
          disabled={busy || confirmDisabled}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** "Showing 1–20 of 45" with Previous / Next buttons driven by the page's `X-*` headers. */
export function Pagination<T>({
  page,
  perPage,
  onPage,
}: {
  readonly page: Page<T>;
  readonly perPage: number;
  readonly onPage: (page: number) => void;
}) {
  const first = (page.page - 1) * perPage + 1;
  const last = first + page.items.length - 1;
  return (
    <nav className="pagination" aria-label="Pagination">
      <span className="muted small">
        Showing {first}–{last}
        {page.total !== null ? ` of ${page.total}` : ''}
      </span>
      <div className="actions">
        <button
          type="button"
          className="button button-small"
          disabled={page.prevPage === null}
          onClick={() => page.prevPage !== null && onPage(page.prevPage)}
        >
          Previous
        </button>
        <button
          type="button"
          className="button button-small"
          disabled={page.nextPage === null}
          onClick={() => page.nextPage !== null && onPage(page.nextPage)}
        >
          Next
        </button>
      </div>
    </nav>
  );
}

/**
 * A WAI-ARIA tab list with automatic activation: clicking selects, and Arrow keys, Home and End move the
 * selection and the focus. `children` renders a tab's label.
 */
export function TabList<T extends string>({
  label,
  tabs,
  selected,
  onSelect,
  tabId,
  panelId,
  variant = 'subtab',
  hidden,
  children,
}: {
  readonly label: string;
  readonly tabs: readonly T[];
  readonly selected: T;
  readonly onSelect: (tab: T) => void;
  readonly tabId: (tab: T) => string;
  readonly panelId: (tab: T) => string;
  /** `tab` for a page's sections, `subtab` inside a panel. */
  readonly variant?: 'tab' | 'subtab';
  readonly hidden?: boolean;
  readonly children: (tab: T) => ReactNode;
}) {
  const refs = useRef<Partial<Record<T, HTMLButtonElement | null>>>({});
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const index = tabs.indexOf(selected);
    const last = tabs.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const tab = tabs[target]!;
    onSelect(tab);
    refs.current[tab]?.focus();
  };
  return (
    <div className={`${variant}s`} role="tablist" aria-label={label} onKeyDown={onKeyDown} hidden={hidden}>
      {tabs.map((t) => (
        <button
          key={t}
          ref={(el) => {
            refs.current[t] = el;
          }}
          type="button"
          role="tab"
          id={tabId(t)}
          aria-selected={t === selected}
          aria-controls={panelId(t)}
          tabIndex={t === selected ? 0 : -1}
          className={variant}
          onClick={() => onSelect(t)}
        >
          {children(t)}
        </button>
      ))}
    </div>
  );
}

/** A search box: its text applies on submit, and emptying it clears the search at once. */
export function SearchForm({
  label,
  placeholder,
  search,
  onSearch,
}: {
  readonly label: string;
  readonly placeholder: string;
  readonly search: string;
  readonly onSearch: (text: string) => void;
}) {
  const [draft, setDraft] = useState(search);
  const id = useId();
  return (
    <form
      className="search-row"
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        onSearch(draft.trim());
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        placeholder={placeholder}
        value={draft}
        onChange={(event) => {
          setDraft(event.target.value);
          if (event.target.value === '' && search !== '') onSearch('');
        }}
      />
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

/** "Projects / Shop / Alerts / Alert #3": links up the hierarchy, then the current page. */
export function Breadcrumbs({
  links,
  current,
}: {
  readonly links: readonly { readonly to: string; readonly label: ReactNode }[];
  readonly current: ReactNode;
}) {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      {links.map((l) => (
        <Fragment key={l.to}>
          <Link to={l.to}>{l.label}</Link>
          <span aria-hidden="true"> / </span>
        </Fragment>
      ))}
      <span aria-current="page">{current}</span>
    </nav>
  );
}

/** A project's name once loaded, its id until then (for breadcrumbs). */
export function projectLabel(project: Resource<{ readonly name: string }>, id: string | number): string {
  return project.status === 'ok' ? project.data.name : `Project ${id}`;
}
