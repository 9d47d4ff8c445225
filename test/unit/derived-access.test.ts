/**
 * What is derived from a thread keeps the thread's grants: the rule that decides who is offered it (under a real
 * access policy), the playbook front matter that records it, saved playbooks marked derived, and the starter
 * prompts a viewer is shown.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offeredTo, widenGrants } from '../../src/agent/derived-access.js';
import { offersOf } from '../../src/agent/derived-offer.js';
import { stampDerivation } from '../../src/agent/playbook-derivation.js';
import { parsePlaybook } from '../../src/agent/playbooks.js';
import { loadSavedPlaybooks } from '../../src/agent/saved-playbooks.js';
import { PromptFileError } from '../../src/base/errors.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Reader, UsedGrants } from '../../src/ports/access.js';
import type { Viewer } from '../../src/ports/chat.js';
import type { Store } from '../../src/ports/store.js';
import { sessionDirectory } from '../../src/sessions/session-directory.js';

const POLICY = parsePolicy(
  `
principals:
  analysts: { slack_users: [U0ANALYST] }
  finance-team: { slack_users: [U0FINANCE] }
  support: { slack_users: [U0SUPPORT] }
  finance-room: { slack_channels: [C0FINANCE] }
databases:
  crm: { sensitive: { customers.email: hash } }
  finance: { show_in: [finance-room] }
grants:
  - { to: [analysts, finance-team], database: crm, tables: [customers, tickets] }
  - { to: [support], database: crm, tables: [customers], columns: [customers.id, customers.name] }
  - { to: [finance-team], database: finance, tables: ["*"] }
`,
  'policy.yaml',
  ['crm', 'finance'],
);
const policy = new AccessPolicy(POLICY, { consoleUser: 'local', pseudonymSecret: 'a-secret-of-some-length' }, []);

function readerOf(user: string, channel = 'C0FINANCE'): Reader {
  const granted = policy.forMessage(
    { threadKey: `slack:T0:${channel}:1.0`, user: { id: user }, place: { channel, dm: false } },
    undefined,
    async () => {},
  );
  if (!('reader' in granted)) throw new Error(`${user} is refused: ${granted.refusal}`);
  return granted.reader;
}

const SALARIES: UsedGrants = { 'finance/salaries': { name: 'raw', title: 'raw', salary: 'raw' } };
const CONTACTS: UsedGrants = { 'crm/customers': { id: 'raw', name: 'raw', email: 'hash' } };
const finance = { thread: 'slack:T0:C0FINANCE:1.0', grantsUsed: SALARIES };

describe('who is offered what a thread derived', () => {
  it('offers a playbook from a thread that read salaries only to people granted salaries, there', () => {
    expect(offeredTo(finance, readerOf('U0FINANCE'))).toBe(true);
    expect(offeredTo(finance, readerOf('U0ANALYST'))).toBe(false);
    expect(offeredTo(finance, readerOf('U0SUPPORT'))).toBe(false);
    // Finance's results may be shown only in the finance channel: elsewhere, not even its own team is offered it.
    expect(offeredTo(finance, readerOf('U0FINANCE', 'C0GENERAL'))).toBe(false);
  });

  it('goes by column and by view: a withheld column, or a pseudonymised one read unmasked, withholds it', () => {
    expect(offeredTo({ grantsUsed: CONTACTS }, readerOf('U0ANALYST'))).toBe(true);
    // Support may not read customers.email at all.
    expect(offeredTo({ grantsUsed: CONTACTS }, readerOf('U0SUPPORT'))).toBe(false);
    const unmasked = { grantsUsed: { 'crm/customers': { email: 'raw' as const } } };
    expect(offeredTo(unmasked, readerOf('U0ANALYST'))).toBe(false);
    expect(offeredTo({ grantsUsed: { 'crm/customers': { name: 'raw' } } }, readerOf('U0SUPPORT'))).toBe(true);
  });

  it('withholds a derived thing whose grants are not known from everyone under a policy, and from no one without', () => {
    for (const user of ['U0FINANCE', 'U0ANALYST', 'U0SUPPORT']) expect(offeredTo({}, readerOf(user))).toBe(false);
    expect(offeredTo({}, undefined)).toBe(true);
    expect(offeredTo(finance, undefined)).toBe(true);
  });

  it('leaves what is not derived (a shipped playbook) to everyone', () => {
    expect(offeredTo(undefined, readerOf('U0SUPPORT'))).toBe(true);
  });

  it('offers a thread that read nothing to anyone the policy lets in', () => {
    expect(offeredTo({ thread: 'console:local:1', grantsUsed: {} }, readerOf('U0SUPPORT'))).toBe(true);
  });
});

describe('widening a thread’s grants', () => {
  it('adds tables and keeps the widest view of each column, leaving its inputs alone', () => {
    const before: UsedGrants = { 'crm/customers': { email: 'hash', name: 'raw' } };
    const widened = widenGrants(before, { 'crm/customers': { email: 'raw', name: 'redact' }, ...SALARIES });
    expect(widened).toEqual({
      'crm/customers': { email: 'raw', name: 'raw' },
      'finance/salaries': { name: 'raw', title: 'raw', salary: 'raw' },
    });
    expect(before).toEqual({ 'crm/customers': { email: 'hash', name: 'raw' } });
    expect(widenGrants(undefined, {})).toEqual({});
  });
});

describe('offers among knowledge pieces', () => {
  it('are every verified query and every derived piece, nothing else', () => {
    const piece = { database: 'crm', text: '', source: 'x.yaml', tables: [] };
    const offers = offersOf([
      { ...piece, kind: 'query', title: 'shipped query' },
      { ...piece, kind: 'definition', title: 'shipped definition' },
      { ...piece, kind: 'note', title: 'learned note', derivedFrom: finance },
    ]);
    expect(offers).toEqual([
      { kind: 'verified-query', name: 'shipped query', source: 'x.yaml' },
      { kind: 'knowledge', name: 'learned note', source: 'x.yaml', derivedFrom: finance },
    ]);
  });
});

const DRAFT = `---
title: Who are the top earners
tags: earners, top
when: The user asks something like "Who are the top earners?"
---
## Requirements

- Establish top earners; the accepted report found: Frank Hale (CFO) earns 412000.

## Specs

- Stage **analysis** (s2 "Top earners"): narrative only.

## Hints

- Check the numbers.

## Example code

\`\`\`python
print(pay.nlargest(2, "salary"))
\`\`\`
`;

describe('a saved playbook’s front matter', () => {
  it('records the thread and its grants, and reads them back', () => {
    const stamped = stampDerivation(DRAFT, finance);
    expect(stamped).toContain('thread: slack:T0:C0FINANCE:1.0\ngrants: {"finance/salaries":');
    const playbook = parsePlaybook('top-earners.md', stamped);
    expect(playbook.derivedFrom).toEqual(finance);
    expect(playbook.title).toBe('Who are the top earners');
    // Stamped again (the grants grew), the lines are replaced, not repeated.
    const again = stampDerivation(stamped, { ...finance, grantsUsed: { ...SALARIES, ...CONTACTS } });
    expect(again.match(/^grants:/gm)).toHaveLength(1);
    expect(parsePlaybook('top-earners.md', again).derivedFrom?.grantsUsed).toHaveProperty('crm/customers');
  });

  it('leaves out grants that are not known, and a shipped playbook has no derivation', () => {
    const stamped = stampDerivation(DRAFT, { thread: 'console:local:1' });
    expect(stamped).not.toContain('grants:');
    expect(parsePlaybook('x.md', stamped).derivedFrom).toEqual({ thread: 'console:local:1' });
    expect(parsePlaybook('x.md', DRAFT).derivedFrom).toBeUndefined();
  });

  it('refuses grants that are not JSON of database/table to column views', () => {
    const bad = (grants: string) => () =>
      parsePlaybook('bad.md', DRAFT.replace('---\n##', `grants: ${grants}\n---\n##`));
    expect(bad('{not json')).toThrow(PromptFileError);
    expect(bad('{"salaries":{"name":"raw"}}')).toThrow(/database\/table/);
    expect(bad('{"finance/salaries":{"name":"everything"}}')).toThrow(PromptFileError);
  });
});

describe('saved playbooks and starter prompts', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'tally-saved-playbooks-'));
    const ask = (text: string) => text.replace('when:', 'ask: Who are the top earners?\nwhen:');
    await writeFile(join(folder, 'legacy.md'), ask(DRAFT).replace('Who are the top earners\n', 'Legacy earners\n'));
    await writeFile(join(folder, 'top-earners.md'), stampDerivation(ask(DRAFT), finance));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('marks every saved playbook derived, recorded or not', async () => {
    const saved = await loadSavedPlaybooks(folder);
    expect(saved.map((playbook) => [playbook.file, playbook.derivedFrom])).toEqual([
      ['legacy.md', {}],
      ['top-earners.md', finance],
    ]);
    expect(await loadSavedPlaybooks(join(folder, 'missing'))).toEqual([]);
  });

  it('suggests a derived playbook only to a viewer who may read what its thread read, there', async () => {
    const saved = await loadSavedPlaybooks(folder);
    const shipped = { ...parsePlaybook('shipped.md', DRAFT), title: 'Shipped', ask: 'How is churn?' };
    const directory = sessionDirectory({
      store: {} as Store,
      databases: [],
      playbooks: () => [shipped, ...saved],
      working: () => false,
      access: policy,
    });
    const viewer = (user: string, channel: string): Viewer => ({
      channel: `slack:T0:${channel}`,
      user: { id: user },
      place: { channel, dm: false },
    });
    const titles = (user: string, channel = 'C0FINANCE') =>
      directory.starterPrompts(viewer(user, channel)).map((prompt) => prompt.title);
    expect(titles('U0FINANCE')).toEqual(['Shipped', 'Who are the top earners']);
    expect(titles('U0FINANCE', 'C0GENERAL')).toEqual(['Shipped']);
    expect(titles('U0ANALYST')).toEqual(['Shipped']);
    const open = sessionDirectory({ store: {} as Store, databases: [], playbooks: () => saved, working: () => false });
    expect(open.starterPrompts(viewer('U0ANALYST', 'C0GENERAL')).map((prompt) => prompt.title)).toEqual([
      'Legacy earners',
      'Who are the top earners',
    ]);
  });
});
