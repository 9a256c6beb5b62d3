// The outbox is the job queue itself (src/jobs/queue.ts), with one dispatcher job kind, `outbox`: the queue's
// rows are already written in the caller's transaction, durable, claimed with a lease and retried with backoff,
// which is everything an outbox table would need again (a crash between commit and dispatch leaves the rows
// there for the next worker). What must happen after a commit is written here as one `outbox` job per event and
// interested handler, in the writer's transaction (a batch's rows in one statement), and run after commit by
// `dispatch`, which calls the handler registered for the event's kind. One job per handler: a handler that throws
// is retried alone and the other handlers of the same event are not run again. Delivery is at least once.
// A handler may say it is not interested (`wants`, a cached lookup asked in the writer's transaction): then no
// row is written at all, so intake pays nothing for events nobody listens to.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { JobQueue } from '../jobs/queue.js';
import type { UnitOfWork } from '../unit-of-work.js';

export const OUTBOX_JOB = 'outbox';

/** The events intake and the alert services write, by kind: plain data, stored as JSON. */
export interface OutboxEvents {
  /**
   * An alert was created or resolved (`at`: when; escalation pages are due from then), acknowledged (an
   * escalation's acknowledgement timeout runs from then) or triggered again because its acknowledgement timed out
   * (`retriggered`: its escalation starts again from the first rule).
   */
  'alert.changed': {
    readonly projectId: number;
    readonly alertId: number;
    readonly iid: number;
    readonly event: 'new' | 'resolved' | 'acknowledged' | 'retriggered';
    readonly at: string;
  };
  /**
   * An incident changed: opened (by hand or by alert intake) or closed, what the chat integrations tell; or, for a
   * paged incident, its escalation status: acknowledged (its acknowledgement timeout runs from `at`), resolved or
   * closed (its escalation stops), or triggered again, by hand or because its acknowledgement timed out (its
   * escalation starts again from the first rule). `at` names the change.
   */
  'incident.changed':
    | {
        readonly projectId: number;
        readonly iid: number;
        readonly event: 'new' | 'closed';
        readonly at: string;
      }
    | {
        readonly projectId: number;
        readonly issueId: number;
        readonly iid: number;
        readonly event: 'resolved' | 'acknowledged' | 'retriggered';
        readonly at: string;
      };
  /** The collector stored an event of an error: whether the error is new, or regressed (at `regressedAt`). */
  'error.recorded': {
    readonly projectId: number;
    readonly errorId: number;
    readonly created: boolean;
    readonly regressedAt: string | null;
  };
  /** GitLab's project events for project hooks (`eventId` names the event: its deliveries are keyed by it). */
  'project.event': ProjectEvent;
}

/** A ref a push moved (`before` or `after` all zeros: created or deleted). */
export interface PushedRef {
  readonly before: string;
  readonly after: string;
  readonly ref: string;
}

/** What happened in a project that its hooks may hear of (GitLab's push, merge request and note events). */
export type ProjectEvent =
  | {
      readonly kind: 'push';
      readonly eventId: string;
      readonly projectId: number;
      readonly userId: number | null;
      readonly update: PushedRef;
    }
  | {
      readonly kind: 'merge_request';
      readonly eventId: string;
      readonly projectId: number;
      readonly userId: number | null;
      readonly iid: number;
      /** GitLab's `object_attributes.action`. */
      readonly action:
        | 'open'
        | 'update'
        | 'close'
        | 'reopen'
        | 'merge'
        | 'approved'
        | 'approval'
        | 'unapproved'
        | 'unapproval';
      /** What an update changed: GitLab's `changes` (`{field: {previous, current}}`). */
      readonly changes?: Readonly<Record<string, { previous: unknown; current: unknown }>>;
      /** The source head before an update that moved it (GitLab's `oldrev`). */
      readonly oldrev?: string;
    }
  | {
      readonly kind: 'note';
      readonly eventId: string;
      readonly projectId: number;
      readonly userId: number | null;
      readonly note: {
        readonly id: number;
        readonly body: string;
        /** GitLab's `noteable_type`: `MergeRequest`, `Issue`, `AlertManagement::Alert`. */
        readonly noteableType: string;
        readonly noteableId: number;
        readonly noteableIid: number;
        readonly internal: boolean;
        readonly createdAt: string;
        readonly updatedAt: string;
      };
    };

export type OutboxKind = keyof OutboxEvents;
type Trx = UnitOfWork;

/** What reacts to one kind of event after it committed. */
export interface OutboxHandler<K extends OutboxKind> {
  /** Whether this event needs the handler (asked in the writer's transaction; absent: always). */
  wants?(trx: Trx, event: OutboxEvents[K]): Promise<boolean>;
  /** Runs after commit, in a transaction of its own (where it may enqueue its jobs). */
  handle(trx: Trx, event: OutboxEvents[K]): Promise<void>;
}

/** The payload of an `outbox` job. */
interface OutboxRow {
  readonly kind: OutboxKind;
  readonly handler: string;
  readonly event: unknown;
}

/** Writes events in one transaction; `flush` writes the staged rows (in that transaction). */
export interface OutboxWriter {
  /** Writes outbox event `kind` (a row for each interested handler, at `flush`). */
  add<K extends OutboxKind>(kind: K, event: OutboxEvents[K]): Promise<void>;
}

class StagedWriter implements OutboxWriter {
  readonly rows: OutboxRow[] = [];
  readonly kinds = new Set<OutboxKind>();

  constructor(
    private readonly outbox: Outbox,
    private readonly trx: Trx,
  ) {}

  async add<K extends OutboxKind>(kind: K, event: OutboxEvents[K]): Promise<void> {
    this.kinds.add(kind);
    for (const [name, h] of this.outbox.handlersOf(kind)) {
      if (h.wants && !(await h.wants(this.trx, event))) continue;
      this.rows.push({ kind, handler: name, event });
    }
  }
}

/**
 * The one dispatcher of what must happen after a commit. The composition root registers handlers by event kind
 * (`on`), and signals (`afterCommit`) for consumers that catch up from the committed rows themselves (the search
 * index keeps its own high-water mark, so a lost signal loses nothing).
 */
export class Outbox {
  private readonly handlers = new Map<OutboxKind, Map<string, OutboxHandler<never>>>();
  private readonly signals = new Map<OutboxKind, (() => void)[]>();
  /** Where a failed signal is reported (the server sets its logger). */
  log: (msg: string, extra?: object) => void = () => undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly jobs: JobQueue,
  ) {
    jobs.register(OUTBOX_JOB, (job) => this.dispatch(job.payload as OutboxRow), 'urgent');
  }

  /** Registers handler `name` for events of `kind` (a name per kind is what its rows carry). */
  on<K extends OutboxKind>(kind: K, name: string, handler: OutboxHandler<K>): void {
    const byName = this.handlers.get(kind) ?? new Map<string, OutboxHandler<never>>();
    this.handlers.set(kind, byName);
    byName.set(name, handler as unknown as OutboxHandler<never>);
  }

  /** Calls `fn` after each commit that wrote an event of `kind` (no row; not retried). */
  afterCommit(kind: OutboxKind, fn: () => void): void {
    const list = this.signals.get(kind) ?? [];
    list.push(fn);
    this.signals.set(kind, list);
  }

  handlersOf<K extends OutboxKind>(kind: K): Iterable<[string, OutboxHandler<K>]> {
    return (this.handlers.get(kind) ?? new Map()) as Map<string, OutboxHandler<K>>;
  }

  /**
   * Runs `fn` in a transaction given by `run` with a writer for its events; their rows are written at the end of
   * that transaction, and dispatched once it committed. `run` may call its function again (a retry): each call
   * starts with no staged event.
   */
  async transaction<T>(
    run: <R>(fn: (trx: Trx) => Promise<R>) => Promise<R>,
    fn: (trx: Trx, outbox: OutboxWriter) => Promise<T>,
  ): Promise<T> {
    const last: { staged?: StagedWriter } = {};
    const out = await run(async (trx) => {
      const writer = new StagedWriter(this, trx);
      const result = await fn(trx, writer);
      if (writer.rows.length > 0)
        await this.jobs.enqueueMany(
          trx,
          writer.rows.map((payload) => ({ kind: OUTBOX_JOB, payload })),
        );
      last.staged = writer;
      return result;
    });
    if (last.staged) this.committed(last.staged);
    return out;
  }

  private committed(w: StagedWriter): void {
    if (w.rows.length > 0) this.jobs.wake();
    for (const kind of w.kinds) {
      for (const fn of this.signals.get(kind) ?? []) {
        try {
          fn();
        } catch (err) {
          this.log('outbox signal failed', { kind, error: String(err) });
        }
      }
    }
  }

  /**
   * Writes one event in a transaction of its own, for a writer whose change already committed without one (a git
   * push, a merge request's change): a crash between the two loses the event, not the change.
   */
  async emit<K extends OutboxKind>(kind: K, event: OutboxEvents[K]): Promise<void> {
    await this.transaction(
      (fn) => this.db.transaction().execute(fn),
      (_trx, out) => out.add(kind, event),
    );
  }

  /** Runs one row's handler in its own transaction (the job is retried when it throws). */
  async dispatch(row: OutboxRow): Promise<void> {
    const handler = this.handlers.get(row.kind)?.get(row.handler);
    if (!handler) throw new Error(`no outbox handler ${row.handler} for ${row.kind}`);
    await this.db.transaction().execute((trx) => handler.handle(trx, row.event as never));
  }
}
