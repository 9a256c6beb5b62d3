import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { Database } from '../db/schema.js';
import type { JobQueue } from '../jobs/queue.js';
import type { OutboundHttp } from '../outbound.js';
import type { Access } from '../projects/access.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService, type ChatSources } from './chat.service.js';

/** Chat integrations (Slack, Mattermost, Teams, Discord, Telegram, Google Chat, Webex) and their deliveries. */
export function wireChat(
  deps: ChatSources & {
    kysely: Kysely<Database>;
    jobs: JobQueue;
    outbound: OutboundHttp;
    cipher: Cipher;
    access: Access;
    clock: Clock;
    externalUrl: string;
    telegramApiUrl: string;
    cacheTtlMs: number;
  },
): { chat: ChatService } {
  return {
    chat: new ChatService(
      new ChatRepository(deps.kysely),
      deps.access,
      {
        projects: deps.projects,
        alerts: deps.alerts,
        silences: deps.silences,
        errors: deps.errors,
        incidents: deps.incidents,
      },
      deps.outbound,
      deps.cipher,
      deps.jobs,
      deps.clock,
      { external: deps.externalUrl, telegramApi: deps.telegramApiUrl },
      deps.cacheTtlMs,
    ),
  };
}
