import { describe, expect, it } from 'vitest';
import { orderRules, rulePages } from './escalation.js';

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
});
