/**
 * Files people share in a thread: data files land read-only in the kernel and the agent is told
 * where; other types and oversized files are refused and kept nowhere; a new kernel gets them back
 * from the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import type { SharedFile } from '../../src/ports/chat.js';
import { type JournalEntry, journalKey } from '../../src/sessions/session-record.js';
import { shownForRequest } from '../support/shown-for-request.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const csv = 'region,sales\nnorth,10\nsouth,32\n';
const shared = (name: string, content: string | Buffer, mime = 'text/csv'): SharedFile => {
  const bytes = Buffer.from(content);
  return { name, mime, sizeBytes: bytes.byteLength, download: async () => bytes };
};

let fixture: TallyFixture;
let told = '';
const shownPrompts: string[] = [];
const PROFILE =
  '- /inputs/uploads/sales.csv (CSV) (2 rows): region object e.g. "north", "south", sales int64 e.g. "10", "32"';

beforeAll(async () => {
  fixture = await startTallyFixture(
    [
      // A clear request: no triage, the first act request reads the file.
      (context: ScriptContext) => {
        told = JSON.stringify(context.messages.at(-1));
        shownPrompts.push(shownForRequest(context));
        return callTool('run_python', {
          code: 'import pandas as pd\nsales = pd.read_csv("/inputs/uploads/sales.csv")\nint(sales.sales.sum())',
        });
      },
      (context) => say(`Total sales: ${context.lastToolResult?.content.split('\n').at(-1)}`),
    ],
    { TALLY_MAX_UPLOAD_MB: '1' },
  );
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('shared files', () => {
  it('delivers a CSV into the kernel and tells the agent where it is', async () => {
    await fixture.send({ text: 'What are the total sales in this file?', files: [shared('sales.csv', csv)] });
    expect(told).toContain('/inputs/uploads/sales.csv (CSV');
    // Profiled in the kernel and listed in the request's own message, where the model triages and works.
    expect(shownPrompts).toHaveLength(1);
    for (const prompt of shownPrompts) expect(prompt).toContain(PROFILE);
    expect(shownPrompts[0]).toContain("a shared file's columns are answerable");
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Total sales: 42');
  });

  it('refuses other types and files over the limit, saying why, and keeps nothing of them', async () => {
    await fixture.send({
      files: [
        shared('tool.exe', 'MZ', 'application/octet-stream'),
        shared('huge.csv', Buffer.alloc(1024 * 1024 + 1, 'a')),
      ],
    });
    const errors = postsOf(fixture.posts, 'error').map((post) => post.text);
    expect(errors).toContain('Not taken: tool.exe: I only take CSV, TSV, Excel, JSON and JSON lines files.');
    expect(errors.some((text) => text.startsWith('Not taken: huge.csv: 1.0 MB is over the 1.0 MB limit'))).toBe(true);
    await fixture.say('```python\nimport os\nsorted(os.listdir("/inputs/uploads"))\n```');
    expect(postsOf(fixture.posts, 'code').at(-1)?.output).toContain("['sales.csv']");
    // Nor in the store, where a shared file is kept for a new kernel: only the CSV taken earlier is.
    const kept = (name: string) => fixture.tally.store.get<string>(`upload:${fixture.thread}:${name}`);
    expect(await kept('sales.csv')).toBe(Buffer.from(csv).toString('base64'));
    expect(await kept('tool.exe')).toBeUndefined();
    expect(await kept('huge.csv')).toBeUndefined();
    const journal = await fixture.tally.store.range<JournalEntry>(journalKey(fixture.thread));
    expect(journal.filter((entry) => entry.kind === 'file')).toEqual([
      { kind: 'file', path: 'uploads/sales.csv', key: `upload:${fixture.thread}:sales.csv` },
    ]);
  });

  it('gives a new kernel the shared files back after a restart', async () => {
    await fixture.stop();
    await fixture.restart([]);
    await fixture.say('```python\nopen("/inputs/uploads/sales.csv").read().splitlines()[-1]\n```');
    expect(postsOf(fixture.posts, 'code').at(-1)?.output).toContain('south,32');
  });
});
