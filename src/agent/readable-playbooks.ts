/**
 * Under the access policy a person sees only some tables: a playbook that works with a table they may not read
 * would steer them (and the model) towards it, so it is not followed for them.
 */
import type { Database } from '../ports/database.js';
import type { Playbook } from './playbooks.js';

/** The playbooks that name no table of `all` outside `readable`. */
export async function readablePlaybooks(
  playbooks: readonly Playbook[],
  all: readonly Database[],
  readable: readonly Database[],
): Promise<Playbook[]> {
  const names = async (databases: readonly Database[]) =>
    new Set((await Promise.all(databases.map((database) => database.listTables()))).flat().map((table) => table.name));
  const [every, allowed] = await Promise.all([names(all), names(readable)]);
  const hidden = [...every].filter((name) => !allowed.has(name));
  if (hidden.length === 0) return [...playbooks];
  return playbooks.filter((playbook) => {
    const words = new Set(`${playbook.title}\n${playbook.body}`.match(/[\w$]+/g) ?? []);
    return !hidden.some((name) => words.has(name));
  });
}
