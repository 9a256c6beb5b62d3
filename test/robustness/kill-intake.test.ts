import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createSentryProject } from '../helpers/sentry.js';
import { type RestartableSetup, restartableSetup, type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

/**
 * kill -9 under load: concurrent senders post distinct alerts (notify URL) and distinct Sentry events (store and
 * envelope); once enough are acknowledged, the server process is SIGKILLed right after one acknowledgement, while
 * the other senders' requests are in flight. After a restart on the same data directory and database, every
 * acknowledged alert and event is there, exactly once. Two rounds: one killed right after an alert was
 * acknowledged, one right after an event was, so that an answer sent before its commit is caught on either path.
 *
 * The server runs the current source (test/setup/svc-bundle.ts), each start on a new ephemeral port.
 */

/** Concurrent senders. */
const SENDERS = 8;
/** Each round kills the server once this many alerts AND this many events were acknowledged in the round. */
const ACKS_BEFORE_KILL = 150;
/** Upper bounds on each round's load: requests, and time to reach the kill point. */
const MAX_REQUESTS = 6_000;
const LOAD_DEADLINE_MS = 30_000;
/** Every request gives up after this long (a request still open at the kill fails at once anyway). */
const REQUEST_TIMEOUT_MS = 10_000;
const PER_PAGE = 100;

const hex = () => randomBytes(16).toString('hex');

/** Every item of a paginated list (GitLab offset pagination), bounded by `maxItems`. */
async function listAll<T>(
  api: ReturnType<typeof http>,
  token: string,
  path: string,
  maxItems: number,
): Promise<T[]> {
  const all: T[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let page = 1; page <= Math.ceil(maxItems / PER_PAGE) + 1; page++) {
    const res = await api.get<T[]>(`${path}${sep}per_page=${PER_PAGE}&page=${page}`, { token });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    all.push(...res.body);
    if (res.body.length < PER_PAGE) return all;
  }
  throw new Error(`${path} has more than ${maxItems} items`);
}

/** The names that occur more than once. */
const duplicates = (names: readonly string[]) => {
  const seen = new Set<string>();
  return [...new Set(names.filter((n) => seen.has(n) || !seen.add(n)))];
};

type Kind = 'alert' | 'store' | 'envelope';
type Family = 'alert' | 'event';
const family = (kind: Kind): Family => (kind === 'alert' ? 'alert' : 'event');

/** Whether a 200 body names what was sent: the new alert (notify) or the event id (collector). */
function acknowledges(kind: Kind, name: string, text: string): boolean {
  const body = JSON.parse(text) as unknown;
  if (kind !== 'alert') return JSON.stringify(body) === JSON.stringify({ id: name });
  return (
    Array.isArray(body) &&
    body.length === 1 &&
    Number.isInteger(body[0]?.iid) &&
    body[0]?.title === `kill ${name}`
  );
}

describe.each(await databases())('kill -9 of the server during alert and event intake (%s)', (database) => {
  let child: SvcServer | null = null;
  let setup: RestartableSetup | null = null;

  afterAll(async () => {
    // A clean stop (drains, closes the database); SIGKILL if it does not stop within 10 s.
    await child?.stop();
    await setup?.dispose();
  });

  it('keeps every acknowledged alert and event, once each, and takes new ones after each restart', async () => {
    setup = await restartableSetup(database, 'kill-intake');
    const { token } = setup;
    const env = {
      ...setup.env,
      // Integrated error tracking is on by default only on the hosted offering.
      SVC_OFFERING: 'hosted',
    };
    const timings: string[] = [];
    const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      const t = Date.now();
      const v = await fn();
      timings.push(`${what} ${Date.now() - t} ms`);
      return v;
    };
    child = await timed('start', () => startSvc(env));
    let server = child;
    let api = http(server.url);
    /** `url` at the running server (each start listens on a new ephemeral port). */
    const here = (url: string) => {
      const u = new URL(url);
      u.host = new URL(server.url).host;
      return u.toString();
    };

    // One project with an HTTP alert integration and integrated error tracking with a client key.
    const project = await createSentryProject(server.url, token, 'kill-intake');
    const integration = await createIntegration(api, token, project.id, { name: 'Load', type: 'http' });
    const dsn = new URL(project.dsn);
    const collector = `${dsn.origin}${dsn.pathname.replace(/\/\d+$/, '')}/api/${project.id}`;
    const storeUrl = `${collector}/store/?sentry_key=${project.publicKey}`;
    const envelopeUrl = `${collector}/envelope/?sentry_key=${project.publicKey}`;

    /** Over all rounds: what was sent and what was acknowledged (a 200 naming it). */
    const sent = { alert: new Set<string>(), event: new Set<string>() };
    const acked = { alert: new Set<string>(), event: new Set<string>() };

    const request = (kind: Kind, name: string): [string, RequestInit] => {
      const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      if (kind === 'alert') {
        return [
          here(integration.url),
          {
            method: 'POST',
            signal,
            headers: {
              authorization: `Bearer ${integration.authorization_key}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ title: `kill ${name}`, fingerprint: name, severity: 'high' }),
          },
        ];
      }
      const event = {
        event_id: name,
        timestamp: Date.now() / 1000,
        platform: 'node',
        level: 'error',
        message: `kill ${name}`,
        // One group, so that the events are read back through one paginated list.
        fingerprint: ['kill-intake'],
      };
      const body =
        kind === 'store'
          ? JSON.stringify(event)
          : `${JSON.stringify({ event_id: name })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`;
      return [
        here(kind === 'store' ? storeUrl : envelopeUrl),
        {
          method: 'POST',
          signal,
          headers: {
            'content-type': kind === 'store' ? 'application/json' : 'application/x-sentry-envelope',
          },
          body,
        },
      ];
    };

    /**
     * Loads the server with SENDERS concurrent senders until the round has ACKS_BEFORE_KILL acknowledgements of
     * each family, then SIGKILLs it right after the next acknowledgement of `trigger`.
     */
    const loadAndKill = async (server: SvcServer, round: number, trigger: Family) => {
      const ackedInRound = { alert: 0, event: 0 };
      const refused: string[] = [];
      let unanswered = 0;
      let inFlight = 0;
      let requests = 0;
      let killedWithInFlight = -1;
      const deadline = Date.now() + LOAD_DEADLINE_MS;
      const sender = async (i: number) => {
        const kinds: Kind[] = ['alert', i % 2 === 0 ? 'store' : 'envelope'];
        for (let n = 0; killedWithInFlight < 0 && requests < MAX_REQUESTS && Date.now() < deadline; n++) {
          const kind = kinds[n % kinds.length]!;
          const name = kind === 'alert' ? `alert-${round}-${i}-${n}-${hex().slice(0, 8)}` : hex();
          sent[family(kind)].add(name);
          requests++;
          inFlight++;
          let ok = false;
          try {
            const [url, init] = request(kind, name);
            const res = await fetch(url, init);
            const text = await res.text();
            ok = res.status === 200 && acknowledges(kind, name, text);
            if (ok) {
              acked[family(kind)].add(name);
              ackedInRound[family(kind)]++;
            } else refused.push(`${kind} ${res.status} ${text.slice(0, 200)}`);
          } catch {
            unanswered++;
          } finally {
            inFlight--;
          }
          const enough = ackedInRound.alert >= ACKS_BEFORE_KILL && ackedInRound.event >= ACKS_BEFORE_KILL;
          if (ok && enough && family(kind) === trigger && killedWithInFlight < 0) {
            // Right after this acknowledgement, while the other senders' requests are in flight.
            killedWithInFlight = inFlight;
            server.proc.kill('SIGKILL');
          }
        }
      };
      const t = Date.now();
      await Promise.all(Array.from({ length: SENDERS }, (_, i) => sender(i)));
      timings.push(`load ${Date.now() - t} ms`);
      const exit = await until(
        () => (server.alive() ? null : server.exited),
        () => 'the server to exit',
        10_000,
      );
      expect(
        killedWithInFlight,
        `round ${round}: kill point not reached: ${JSON.stringify(ackedInRound)} acknowledged, ` +
          `${requests} requests, refused: ${refused.slice(0, 5).join(', ')}\n${server.output()}`,
      ).toBeGreaterThan(0);
      expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
      expect(refused).toEqual([]);
      return `round ${round} (killed after an ${trigger}): ${requests} requests, ${ackedInRound.alert} alerts and ${ackedInRound.event} events acknowledged, ${killedWithInFlight} in flight at the kill, ${unanswered} unanswered`;
    };

    let storedEventCount = 0;
    /** After a restart: every acknowledged alert and event is there once; nothing that was never sent. */
    const verify = async () => {
      const health = await api.get('/-/health');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });

      const alerts = await listAll<{
        iid: number;
        title: string;
        fingerprint: string | null;
        event_count: number;
      }>(api, token, `/api/v4/projects/${project.id}/alert_management/alerts`, sent.alert.size + 10);
      const alertNames = alerts.map((a) => a.title.replace(/^kill /, ''));
      expect(duplicates(alertNames), 'alerts stored twice').toEqual([]);
      expect(duplicates(alerts.map((a) => String(a.iid))), 'alert iids used twice').toEqual([]);
      const storedAlerts = new Set(alertNames);
      expect(
        [...acked.alert].filter((n) => !storedAlerts.has(n)),
        'acknowledged alerts lost',
      ).toEqual([]);
      expect(
        alertNames.filter((n) => !sent.alert.has(n)),
        'alerts that were never sent',
      ).toEqual([]);
      expect(alerts.filter((a) => a.event_count !== 1 || a.fingerprint === null)).toEqual([]);
      // An alert whose request was cut by the kill is all there or not at all: with its system note.
      for (const a of alerts.filter((x) => !acked.alert.has(x.title.replace(/^kill /, '')))) {
        const notes = await api.get(`/api/v4/projects/${project.id}/alert_management/alerts/${a.iid}/notes`, {
          token,
        });
        expect(notes.status).toBe(200);
        expect(notes.body.map((n: { body: string }) => n.body)).toEqual(['logged an alert from **Load**']);
      }

      const errorsPath = `/api/v4/projects/${project.id}/error_tracking/errors`;
      const errors = await listAll<{ id: number; count: number }>(api, token, errorsPath, 10);
      expect(errors).toHaveLength(1);
      const events = await listAll<{ event_id: string; message: string }>(
        api,
        token,
        `${errorsPath}/${errors[0]!.id}/events`,
        sent.event.size + 10,
      );
      const eventIds = events.map((e) => e.event_id);
      expect(duplicates(eventIds), 'events stored twice').toEqual([]);
      const storedEvents = new Set(eventIds);
      expect(
        [...acked.event].filter((id) => !storedEvents.has(id)),
        'acknowledged events lost',
      ).toEqual([]);
      expect(
        eventIds.filter((id) => !sent.event.has(id)),
        'events that were never sent',
      ).toEqual([]);
      expect(events.filter((e) => e.message !== `kill ${e.event_id}`)).toEqual([]);
      // The error's counter matches its events: no event counted without being stored, or the reverse.
      expect(errors[0]!.count).toBe(events.length);
      storedEventCount = storedEvents.size;
      return `${storedAlerts.size} alerts and ${storedEvents.size} events stored (${storedAlerts.size - acked.alert.size} + ${storedEvents.size - acked.event.size} unacknowledged but kept)`;
    };

    const summary: string[] = [];
    for (const [round, trigger] of [
      [1, 'alert'],
      [2, 'event'],
    ] as const) {
      summary.push(await loadAndKill(child, round, trigger));
      child = await timed('restart', () => startSvc(env));
      server = child;
      api = http(server.url);
      summary.push(await timed('verify', verify));
    }

    // The restarted server takes new alerts and events.
    const [alertUrl, alertInit] = request('alert', 'after-restart');
    const newAlert = await fetch(alertUrl, alertInit);
    expect(newAlert.status).toBe(200);
    expect(await newAlert.json()).toEqual([{ iid: expect.any(Number), title: 'kill after-restart' }]);
    const eventId = hex();
    const [eventUrl, eventInit] = request('envelope', eventId);
    const newEvent = await fetch(eventUrl, eventInit);
    expect(newEvent.status).toBe(200);
    expect(await newEvent.json()).toEqual({ id: eventId });
    const found = await api.get(
      `/api/v4/projects/${project.id}/alert_management/alerts?search=${encodeURIComponent('kill after-restart')}`,
      { token },
    );
    expect(found.body.map((a: { title: string }) => a.title)).toEqual(['kill after-restart']);
    const errors = await api.get(`/api/v4/projects/${project.id}/error_tracking/errors`, { token });
    expect(errors.body).toHaveLength(1);
    expect(errors.body[0].count).toBe(storedEventCount + 1);

    console.info(`[kill-intake ${database}] ${[...summary, timings.join(', ')].join('; ')}`);
    // Bounded: each round's load stops by LOAD_DEADLINE_MS; the rest is three starts and the reads (slower on a
    // busy machine).
  }, 240_000);
});
