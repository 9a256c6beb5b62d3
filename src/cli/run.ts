import { appErrorText } from '../api/errors.js';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';

/** The environment the CLI entry passes to every command (only the entry reads the process environment). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Exit codes: 0 success, 1 failure at run time, 2 bad configuration or usage. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Prints `svc: <message>` to stderr and exits with the usage code. */
export function usage(message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(EXIT_USAGE);
}

/** Prints a failure the way the operator needs it and exits: configuration errors 2, anything else 1. */
export function fail(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`svc: configuration error: ${err.message}\n`);
    process.exit(EXIT_USAGE);
  }
  if (err instanceof AppError) {
    process.stderr.write(`svc: ${appErrorText(err)}\n`);
    process.exit(EXIT_FAILURE);
  }
  process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT_FAILURE);
}

/** Prints a line to stderr (the first admin's generated password, progress notes). */
export const printErr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
