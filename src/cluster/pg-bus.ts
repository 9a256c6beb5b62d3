import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { loadPg } from '../db/db.js';
import { type InvalidationBus, Subscribers, TOPICS, type Topic } from './bus.js';

/** The PostgreSQL channel every svc process listens on. */
export const BUS_CHANNEL = 'svc_invalidate';
/** The listening connection's `application_name` (so operators and tests can find it in `pg_stat_activity`). */
export const BUS_APPLICATION_NAME = 'svc-invalidation-bus';
/** How often the listening connection is checked; a connection that does not answer within this is replaced. */
const PING_MS = 5000;
const MAX_RECONNECT_MS = 5000;

/**
 * The invalidation bus over PostgreSQL `LISTEN/NOTIFY`: one dedicated connection per process listens on
 * `svc_invalidate`; a publish clears this process's caches, then sends `pg_notify` (delivered to every listener
 * when it commits, which is at once outside a transaction). When the listening connection fails (an error, its
 * end, or a ping left unanswered) every cache is flushed and the connection is opened again with backoff, then
 * every cache is flushed once more (a change may have been announced while nobody listened).
 */
export class PgBus implements InvalidationBus {
  private readonly subscribers = new Subscribers();
  private readonly origin = randomUUID();
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = 100;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  /** Times the listening connection was (re)established; for tests and logs. */
  connects = 0;

  constructor(
    private readonly connectionString: string,
    /** Sends a notification on the channel (through the application's pool). */
    private readonly notify: (channel: string, payload: string) => Promise<void>,
    /** Where connection problems are reported (the server sets its logger). */
    public log: (msg: string, extra?: object) => void = () => undefined,
  ) {}

  /** Opens the listening connection; resolves once it listens or failed once (it then keeps retrying). */
  async start(): Promise<void> {
    await this.connect();
    this.pingTimer = setInterval(() => void this.ping(), PING_MS);
    this.pingTimer.unref();
  }

  /** Whether the listening connection is up. */
  get listening(): boolean {
    return this.client !== null;
  }

  async publish(topic: Topic): Promise<void> {
    this.subscribers.fire(topic);
    try {
      await this.notify(BUS_CHANNEL, JSON.stringify({ topic, origin: this.origin }));
    } catch (err) {
      // The change is committed; the others see it when their short cache lifetime ends.
      this.log('cache invalidation not sent', { topic, error: String(err) });
    }
  }

  subscribe(topics: Topic | readonly Topic[], fn: () => void): void {
    this.subscribers.add(topics, fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const c = new (loadPg().Client)({
      connectionString: this.connectionString,
      application_name: BUS_APPLICATION_NAME,
      keepAlive: true,
    });
    c.on('notification', (msg) => this.received(msg.payload));
    c.on('error', () => this.lost(c));
    c.on('end', () => this.lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${BUS_CHANNEL}`);
    } catch (err) {
      c.end().catch(() => undefined);
      this.log('cache invalidation bus: cannot listen, retrying', { error: String(err) });
      this.schedule();
      return;
    }
    if (this.closed) {
      await c.end().catch(() => undefined);
      return;
    }
    this.client = c;
    this.connects++;
    this.retryMs = 100;
    // Whatever changed while nobody listened is unknown: start from the database again.
    this.subscribers.fireAll();
  }

  private received(payload: string | undefined): void {
    let parsed: { topic?: unknown; origin?: unknown };
    try {
      parsed = JSON.parse(payload ?? '') as typeof parsed;
    } catch {
      this.subscribers.fireAll();
      return;
    }
    if (parsed.origin === this.origin) return;
    if (TOPICS.includes(parsed.topic as Topic)) this.subscribers.fire(parsed.topic as Topic);
    else this.subscribers.fireAll();
  }

  /** The listening connection failed: flush now (notices may be lost from here on) and connect again. */
  private lost(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = null;
    c.end().catch(() => undefined);
    this.subscribers.fireAll();
    if (!this.closed) this.log('cache invalidation bus: connection lost, reconnecting');
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(MAX_RECONNECT_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
  }

  /** A half-open TCP connection reports nothing: a query that does not come back in time ends it. */
  private async ping(): Promise<void> {
    const c = this.client;
    if (!c) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), PING_MS);
    });
    const answer = await Promise.race([
      c.query('SELECT 1').then(
        () => 'ok' as const,
        () => 'late' as const,
      ),
      late,
    ]);
    clearTimeout(timer);
    if (answer === 'late') this.lost(c);
  }
}
