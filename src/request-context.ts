import { AsyncLocalStorage } from 'node:async_hooks';

/** What services may know about the request they serve, without importing the HTTP layer. */
export interface RequestContext {
  /** The client's address (the socket's: svc does not trust forwarding headers). */
  readonly ip: string | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it starts) inside a request's context. */
export function runInRequestContext(context: RequestContext, fn: () => void): void {
  storage.run(context, fn);
}

/** The client address of the request being served, when there is one. */
export function currentClientAddress(): string | undefined {
  return storage.getStore()?.ip;
}
