import { describe, expect, it } from 'vitest';
import { PayloadShapeError, PayloadTextError, TooManyAlertsError } from '../alerts/alerts.js';
import { notFound } from '../errors.js';
import { MergeRefusedError } from '../merge-requests/merge-requests.js';
import { domainErrorResponse } from './errors.js';

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
