import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Outbox } from '../ingest/outbox.js';
import type { UsersService } from '../users/users.service.js';
import { NotesRepository } from './notes.repository.js';
import { NotesService } from './notes.service.js';

/** Notes of every noteable; the noteables' features use the service (it holds no state of its own). */
export function wireNotes(deps: {
  kysely: Kysely<Database>;
  users: UsersService;
  clock: Clock;
  /** Where comments write their note events. */
  outbox: Pick<Outbox, 'emit'>;
}): NotesService {
  return new NotesService(new NotesRepository(deps.kysely), deps.users, deps.clock, deps.outbox);
}
