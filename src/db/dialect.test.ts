import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from './dialect.js';

/** The errors node:sqlite really throws (its `code` is a generic ERR_SQLITE_ERROR; `errcode` says which). */
function errorOf(sql: string): unknown {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (a INTEGER NOT NULL, b INTEGER, UNIQUE (a, b))');
  db.exec('INSERT INTO t (a, b) VALUES (1, 1)');
  try {
    db.exec(sql);
  } catch (err) {
    return err;
  } finally {
    db.close();
  }
  throw new Error(`no error from ${sql}`);
}

describe('isUniqueViolation on node:sqlite', () => {
  it('recognises a unique violation, and of which index by its columns', () => {
    const err = errorOf('INSERT INTO t (a, b) VALUES (1, 1)');
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(err, { name: 't_a_b', table: 't', columns: ['a', 'b'] })).toBe(true);
    expect(isUniqueViolation(err, { name: 't_a', table: 't', columns: ['a'] })).toBe(false);
  });

  it('recognises it by the result code when the message says nothing', () => {
    const err = errorOf('INSERT INTO t (a, b) VALUES (1, 1)') as Error;
    err.message = 'constraint failed';
    expect(isUniqueViolation(err)).toBe(true);
  });

  it('does not take another constraint for one', () => {
    expect(isUniqueViolation(errorOf('INSERT INTO t (a, b) VALUES (NULL, 2)'))).toBe(false);
  });
});
