/**
 * Playbooks saved from accepted reports (TALLY_PLAYBOOK_DIR). Every one of them is derived from a thread, whether
 * or not its front matter says which: one without recorded grants is offered to no one under an access policy
 * (`offeredTo`), where a shipped playbook of prompts/playbooks is offered as before.
 */
import { existsSync } from 'node:fs';
import { loadPlaybooks, type Playbook, parsePlaybook } from './playbooks.js';

/** A saved playbook's file, parsed and marked derived. */
export function parseSavedPlaybook(path: string, text: string): Playbook {
  return markDerived(parsePlaybook(path, text));
}

/** The playbooks of the folder, each marked derived; none when the folder does not exist yet. */
export async function loadSavedPlaybooks(folder: string): Promise<Playbook[]> {
  return existsSync(folder) ? (await loadPlaybooks(folder)).map(markDerived) : [];
}

function markDerived(playbook: Playbook): Playbook {
  return { ...playbook, derivedFrom: playbook.derivedFrom ?? {} };
}
