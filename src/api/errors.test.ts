import { describe, expect, it } from 'vitest';
import { PayloadShapeError, PayloadTextError, TooManyAlertsError } from '../alerts/alerts.js';
import {
  type AppError,
  badRequest,
  conflict,
  type ErrorKind,
  forbidden,
  gone,
  insufficientScope,
  invalidFields,
  invalidToken,
  notFound,
  paramError,
  plainError,
  READ_ONLY_MESSAGE,
  readOnlyError,
  tooManyRequests,
  unauthorized,
  unprocessable,
} from '../errors.js';
import { MergeRefusedError } from '../merge-requests/merge-requests.js';
import { appErrorResponse, appErrorText, domainErrorResponse, ERROR_KINDS, statusOf } from './errors.js';

describe('domainErrorResponse: the GitLab answers to the services’ domain errors', () => {
  it('answers each merge refusal as GitLab does (405 not open, 406 cannot be merged, 409 moved)', () => {
    const answer = (reason: ConstructorParameters<typeof MergeRefusedError>[0]) =>
      domainErrorResponse(new MergeRefusedError(reason));
    expect(answer('not_open')).toEqual({ status: 405, body: { message: '405 Method Not Allowed' } });
    expect(answer('draft')).toEqual({
      status: 406,
      body: { message: '406 Branch cannot be merged: the merge request is a draft' },
    });
    expect(answer('branch_missing')).toEqual({
      status: 406,
      body: { message: '406 Branch cannot be merged: a branch is missing' },
    });
    expect(answer('conflicts')).toEqual({
      status: 406,
      body: { message: '406 Branch cannot be merged: the branches have conflicts' },
    });
    expect(answer('sha_mismatch')).toEqual({
      status: 409,
      body: { message: 'SHA does not match HEAD of source branch' },
    });
    expect(answer('target_changed')).toEqual({
      status: 409,
      body: { message: 'The target branch changed during the merge; try again' },
    });
  });

  it('answers alert payload errors 400 (text), 413 (too many alerts) and 422 (shape)', () => {
    expect(domainErrorResponse(new PayloadTextError('The payload is empty'))).toEqual({
      status: 400,
      body: { message: '400 Bad request - The payload is empty' },
    });
    expect(domainErrorResponse(new TooManyAlertsError('at most 100 alerts'))).toEqual({
      status: 413,
      body: { message: '413 Request Entity Too Large - at most 100 alerts' },
    });
    expect(domainErrorResponse(new PayloadShapeError('alerts must be an array'))).toEqual({
      status: 422,
      body: { message: '422 Unprocessable Entity - alerts must be an array' },
    });
  });

  it('leaves every other error to the rest of the handler', () => {
    expect(domainErrorResponse(new Error('boom'))).toBeNull();
    expect(domainErrorResponse(notFound('Project'))).toBeNull();
  });
});

describe('the error table: every domain error kind answers with the status and GitLab body it always had', () => {
  const answer = (e: AppError) => appErrorResponse(e);

  it('maps every kind to its status', () => {
    const statuses: Record<ErrorKind, number> = {
      bad_request: 400,
      invalid: 400,
      unauthorized: 401,
      forbidden: 403,
      read_only: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      gone: 410,
      too_large: 413,
      unsupported_media_type: 415,
      unprocessable: 422,
      rate_limited: 429,
      internal: 500,
    };
    for (const [kind, status] of Object.entries(statuses)) expect(statusOf(kind as ErrorKind)).toBe(status);
    expect(Object.keys(ERROR_KINDS).sort()).toEqual(Object.keys(statuses).sort());
  });

  it('keeps the helpers’ bodies', () => {
    expect(answer(badRequest('x is bad'))).toEqual({
      status: 400,
      body: { message: '400 Bad request - x is bad' },
      headers: {},
    });
    expect(answer(paramError('title is missing'))).toEqual({
      status: 400,
      body: { error: 'title is missing' },
      headers: {},
    });
    expect(answer(paramError('keyset only', 'method_not_allowed'))).toMatchObject({
      status: 405,
      body: { error: 'keyset only' },
    });
    expect(answer(unauthorized())).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(answer(unauthorized('token expired'))).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized - token expired' },
    });
    expect(answer(invalidToken('Token is expired.'))).toEqual({
      status: 401,
      body: { error: 'invalid_token', error_description: 'Token is expired.' },
      headers: {},
    });
    expect(answer(forbidden())).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(answer(forbidden('Must be admin to use sudo'))).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Must be admin to use sudo' },
    });
    expect(answer(insufficientScope('api'))).toEqual({
      status: 403,
      body: {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: 'api',
      },
      headers: {},
    });
    expect(answer(readOnlyError())).toMatchObject({ status: 403, body: { message: READ_ONLY_MESSAGE } });
    expect(answer(notFound())).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(answer(notFound('Project'))).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect(answer(conflict('Username has already been taken'))).toMatchObject({
      status: 409,
      body: { message: 'Username has already been taken' },
    });
    expect(answer(gone('removed in 17.0'))).toMatchObject({
      status: 410,
      body: { message: '410 Gone - removed in 17.0' },
    });
    expect(answer(unprocessable('Hook execution failed'))).toMatchObject({
      status: 422,
      body: { message: 'Hook execution failed' },
    });
    expect(answer(tooManyRequests(7, 'This endpoint has been requested too many times.'))).toEqual({
      status: 429,
      body: { message: 'This endpoint has been requested too many times.' },
      headers: { 'Retry-After': '7' },
    });
    expect(answer(invalidFields({ name: ['has already been taken'] }))).toMatchObject({
      status: 400,
      body: { message: { name: ['has already been taken'] } },
    });
    expect(answer(invalidFields({ url: ['is blocked'] }, 'unprocessable'))).toMatchObject({
      status: 422,
      body: { message: { url: ['is blocked'] } },
    });
    expect(answer(plainError('too_large', 'The fetch request is larger than 10 MiB'))).toMatchObject({
      status: 413,
      body: { message: 'The fetch request is larger than 10 MiB' },
    });
    expect(answer(plainError('internal', 'Sentry API response is missing keys'))).toMatchObject({
      status: 500,
      body: { message: 'Sentry API response is missing keys' },
    });
    expect(appErrorText(notFound('Project'))).toBe('404 Project Not Found');
    expect(appErrorText(paramError('id is invalid'))).toBe('{"error":"id is invalid"}');
  });
});
