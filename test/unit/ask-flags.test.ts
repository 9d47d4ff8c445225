/** `tally ask` flags, and how a run's end becomes an outcome and an exit code. */
import { describe, expect, it } from 'vitest';
import { parseAskFlags } from '../../src/ask/ask-flags.js';
import { EXIT_CODES, outcomeOf } from '../../src/ask/ask-result.js';
import type { Waiting } from '../../src/sessions/drive-thread.js';

describe('parseAskFlags', () => {
  it('joins the question words and takes flags anywhere, as --flag value or --flag=value', () => {
    expect(parseAskFlags(['Which', '--db', 'sqlite:t.db', 'contract', '--json', '--review=stop', 'churns?'])).toEqual({
      question: 'Which contract churns?',
      db: 'sqlite:t.db',
      review: 'stop',
      json: true,
      files: [],
    });
    expect(parseAskFlags(['q', '--approve', 'skip', '--out', 'reports'])).toEqual({
      question: 'q',
      review: 'accept',
      approve: 'skip',
      out: 'reports',
      json: false,
      files: [],
    });
    expect(parseAskFlags(['q', '--file', 'a.csv', '--file=b c.xlsx'])).toMatchObject({ files: ['a.csv', 'b c.xlsx'] });
    expect(parseAskFlags(['--', '--not-a-flag', 'here'])).toMatchObject({ question: '--not-a-flag here' });
  });

  it('says in one line what is wrong', () => {
    expect(parseAskFlags(['q', '--verbose'])).toBe('unknown flag --verbose');
    expect(parseAskFlags(['q', '--out'])).toBe('--out needs a value');
    expect(parseAskFlags(['q', '--file'])).toBe('--file needs a value');
    expect(parseAskFlags(['q', '--db', '--json'])).toBe('--db needs a value');
    expect(parseAskFlags(['q', '--approve', 'always'])).toBe('--approve always: use run, skip');
    expect(parseAskFlags(['q', '--json=yes'])).toBe('unknown flag --json');
    expect(parseAskFlags(['--json'])).toMatch(/^ask needs a question/);
  });
});

describe('outcomeOf', () => {
  const context = { thread: 'console:local:ask-1', sections: [] };

  it('reads the answer, an error, or a decline from what the thread was last shown', () => {
    const done = { end: 'done', rounds: 2 } as const;
    expect(
      outcomeOf(
        done,
        [
          { kind: 'text', markdown: 'Accepted s2' },
          { kind: 'text', markdown: '42.' },
        ],
        context,
      ),
    ).toEqual({ outcome: 'answered', answer: '42.' });
    expect(outcomeOf(done, [{ kind: 'error', text: 'I gave up on this step' }], context)).toEqual({
      outcome: 'failed',
      message: 'I gave up on this step',
    });
    const declined = "I can't answer that from the data I have: no calls.\n\nWhat I can see (telco): …";
    expect(outcomeOf(done, [{ kind: 'text', markdown: declined }], context)).toEqual({
      outcome: 'out_of_scope',
      message: "I can't answer that from the data I have: no calls.",
    });
    expect(outcomeOf(done, [], context).outcome).toBe('failed');
  });

  it('names what the thread was left waiting on', () => {
    const left = (waiting: Waiting) => ({ end: 'left', waiting, rounds: 0 }) as const;
    const approval = left({
      kind: 'approval',
      callId: 'c',
      tool: 'run_python',
      arguments: '{}',
      language: 'python',
      code: 'x',
      reason: 'installs a package',
    });
    expect(outcomeOf(approval, [], context)).toMatchObject({
      outcome: 'approval_needed',
      message: expect.stringContaining('--approve run'),
    });
    const question = left({ kind: 'triage', request: 'r', text: 'Which year?', choices: ['2023', '2024'] });
    expect(outcomeOf(question, [], context)).toMatchObject({
      outcome: 'needs_answer',
      message: expect.stringContaining('Which year? (2023 / 2024)'),
    });
    expect(
      outcomeOf(
        { end: 'round_limit', rounds: 50, waiting: { kind: 'review', callId: 'c', section: 's9', version: 1 } },
        [],
        context,
      ).outcome,
    ).toBe('failed');
  });

  it('maps outcomes to the documented exit codes', () => {
    expect(EXIT_CODES).toEqual({
      answered: 0,
      review_stopped: 0,
      failed: 1,
      needs_answer: 2,
      approval_needed: 2,
      not_granted: 2,
      out_of_scope: 3,
    });
  });
});
