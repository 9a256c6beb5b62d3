import { isUniqueViolation } from '../db/dialect.js';

/**
 * Another transaction committed the same key first (PostgreSQL: a concurrent insert that the check before it
 * could not see). Running the whole transaction again resolves it: the check then sees the winner.
 */
export class WriteConflict extends Error {
  constructor(what = 'a concurrent transaction wrote the same row first') {
    super(what);
  }
}

/** Errors that running the transaction again resolves: a lost unique-index race. */
export function isRetryable(err: unknown): boolean {
  return err instanceof WriteConflict || isUniqueViolation(err);
}
