import { describe, expect, it } from 'vitest';
import { orderRules, pageCommands, rulePages } from './escalation.js';

describe('escalation rules', () => {
  it('an acknowledged rule pages only a triggered alert; a resolved rule a triggered or acknowledged one', () => {
    const table = (['triggered', 'acknowledged', 'resolved', 'ignored'] as const).map((s) => [
      s,
      rulePages('acknowledged', s),
      rulePages('resolved', s),
    ]);
    expect(table).toEqual([
      ['triggered', true, true],
      ['acknowledged', false, true],
      ['resolved', false, false],
      ['ignored', false, false],
    ]);
  });

  it("keeps GitLab's order: elapsed time, then acknowledged before resolved", () => {
    const rules = orderRules([
      { elapsedTimeSeconds: 60, status: 'resolved' as const },
      { elapsedTimeSeconds: 60, status: 'acknowledged' as const },
      { elapsedTimeSeconds: 0, status: 'resolved' as const },
    ]);
    expect(rules).toEqual([
      { elapsedTimeSeconds: 0, status: 'resolved' },
      { elapsedTimeSeconds: 60, status: 'acknowledged' },
      { elapsedTimeSeconds: 60, status: 'resolved' },
    ]);
  });

  it('reads /page lines out of a note, outside fenced code, leaving the rest', () => {
    expect(pageCommands('/page Night shift')).toEqual({ names: ['Night shift'], rest: '' });
    expect(pageCommands('Waking them.\r\n/page Ops  \r\nthanks')).toEqual({
      names: ['Ops'],
      rest: 'Waking them.\r\nthanks',
    });
    expect(pageCommands('```\n/page Ops\n```')).toEqual({ names: [], rest: '```\n/page Ops\n```' });
    expect(pageCommands('/pages Ops\n /page Ops\nsee /page Ops')).toEqual({
      names: [],
      rest: '/pages Ops\n /page Ops\nsee /page Ops',
    });
    expect(pageCommands('/page')).toEqual({ names: [''], rest: '' });
  });
});
