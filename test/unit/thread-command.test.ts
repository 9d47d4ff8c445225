/** Review, approval and report commands, typed or clicked. */
import { describe, expect, it } from 'vitest';
import { ACTION_IDS, type Inbound } from '../../src/ports/chat.js';
import { parseThreadCommand } from '../../src/sessions/thread-command.js';

const typed = (text: string): Inbound => ({ threadKey: 't', user: { id: 'U1' }, text, receivedAt: 0 });
const clicked = (id: string, value: string, text = ''): Inbound => ({ ...typed(text), action: { id, value } });

describe('thread commands', () => {
  it.each([
    ['accept', { kind: 'review', action: 'accept' }],
    ['Accept s2', { kind: 'review', action: 'accept', section: 's2' }],
    ['accept query', { kind: 'review', action: 'accept', section: 'query' }],
    ['discard playbook', { kind: 'review', action: 'discard', section: 'playbook' }],
    ['discard.', { kind: 'review', action: 'discard' }],
    ['discard', { kind: 'review', action: 'discard' }],
    ['revise: add a chart of tenure', { kind: 'review', action: 'revise', feedback: 'add a chart of tenure' }],
    ['revise s3 - shorter please', { kind: 'review', action: 'revise', section: 's3', feedback: 'shorter please' }],
    ['revise', { kind: 'review', action: 'revise' }],
    ['accept the churn definition from finance and redo it', undefined],
    ['run', { kind: 'approval', decision: 'run' }],
    ['run a regression on tenure', undefined],
    ['skip: not needed', { kind: 'approval', decision: 'skip', note: 'not needed' }],
    ['edit\n```python\nx = 2\n```', { kind: 'approval', decision: 'edit', code: 'x = 2' }],
    ['edit the chart colours', undefined],
    ['report', { kind: 'export' }],
    ['/report', { kind: 'export' }],
    ['export the report', { kind: 'export' }],
    ['save as playbook', { kind: 'save-playbook' }],
    ['save this as a playbook: Contract churn review', { kind: 'save-playbook', title: 'Contract churn review' }],
    ['which contract churns most?', undefined],
    ['reset', { kind: 'reset' }],
    ['/reset', { kind: 'reset' }],
    ['reset the kernel', { kind: 'reset' }],
    ['reset the churn flag to zero', undefined],
  ])('%j', (text, expected) => {
    expect(parseThreadCommand(typed(text))).toEqual(expected);
  });

  it('reads buttons: the section and version from the value, feedback and edited code from the text', () => {
    expect(parseThreadCommand(clicked(ACTION_IDS.accept, 's1@2'))).toEqual({
      kind: 'review',
      action: 'accept',
      section: 's1',
      version: 2,
    });
    expect(parseThreadCommand(clicked(ACTION_IDS.revise, 's2@1', 'use monthly charges'))).toEqual({
      kind: 'review',
      action: 'revise',
      section: 's2',
      version: 1,
      feedback: 'use monthly charges',
    });
    expect(parseThreadCommand(clicked(ACTION_IDS.edit, 'call_1', 'x = 3'))).toEqual({
      kind: 'approval',
      decision: 'edit',
      code: 'x = 3',
    });
    expect(parseThreadCommand(clicked(ACTION_IDS.skip, 'call_1'))).toEqual({ kind: 'approval', decision: 'skip' });
    expect(parseThreadCommand(clicked(ACTION_IDS.choice, 'Month-to-month', 'Month-to-month'))).toBeUndefined();
  });
});
