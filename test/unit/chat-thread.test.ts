import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentChatThread, FIRST_CHAT_THREAD, startChatThread } from '../../src/cli/chat-thread.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tally-chat-thread-'));
});
afterEach(async () => rm(home, { recursive: true, force: true }));

describe('the chat thread of a home', () => {
  it('is the first chat thread until another is started, then the latest one started', async () => {
    expect(await currentChatThread(home)).toBe(FIRST_CHAT_THREAD);
    expect(await startChatThread(home, 1_000)).toBe('console:local:chat-1000');
    expect(await currentChatThread(home)).toBe('console:local:chat-1000');
    expect(await startChatThread(home, 5_000)).toBe('console:local:chat-5000');
    expect(await currentChatThread(home)).toBe('console:local:chat-5000');
    expect(await readFile(join(home, 'chat-thread'), 'utf8')).toBe('console:local:chat-5000\n');
  });

  it('starts a new one even twice in the same millisecond, and in a home not made yet', async () => {
    const fresh = join(home, 'not-yet');
    const first = await startChatThread(fresh, 7_000);
    const second = await startChatThread(fresh, 7_000);
    expect(second).not.toBe(first);
    expect(await currentChatThread(fresh)).toBe(second);
  });
});
