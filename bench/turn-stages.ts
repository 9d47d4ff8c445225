/**
 * Where tally's own time goes in a turn, from a CPU profile: each sample is charged to the innermost
 * frame of tally's own code on its stack (a library or Node's internals work for the tally code that
 * called them), and that frame's file to a stage: the store, the session (router, inbox, journal),
 * building the prompt (schema, knowledge, playbooks), the agent's loop, policy, audit, posting, the
 * model client. Samples with no tally frame (idle, GC, timers) are left out.
 */
import type { Profiler } from 'node:inspector';

const STAGES: ReadonlyArray<readonly [string, RegExp]> = [
  ['store', /\/src\/store\//],
  [
    'prompt building',
    /\/src\/agent\/(schema\/|knowledge-prompt|shared-file-profile|playbook|follow-playbook|turn-message)|\/src\/knowledge\//,
  ],
  ['policy', /\/src\/policy\//],
  ['audit', /\/src\/audit\//],
  ['posting', /\/adapters\/|\/bench\/turn\.ts/],
  ['model client', /\/src\/llm\//],
  ['database', /\/src\/db\//],
  ['session', /\/src\/sessions\//],
  ['agent loop', /\/src\/agent\//],
];

/** tally's own files (a package's `src/` under node_modules is not). */
const ours = (url: string) => /\/(src|adapters|sandbox)\//.test(url) && !url.includes('/node_modules/');

/** Milliseconds of CPU by stage over the profile. */
export function stagesOf(profile: Profiler.Profile): Record<string, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const stageOfNode = new Map<number, string | undefined>();
  const stageOf = (id: number): string | undefined => {
    if (stageOfNode.has(id)) return stageOfNode.get(id);
    const url = byId.get(id)?.callFrame.url ?? '';
    const up = parent.get(id);
    const stage = ours(url)
      ? (STAGES.find(([, pattern]) => pattern.test(url))?.[0] ?? 'other tally code')
      : up === undefined
        ? undefined
        : stageOf(up);
    stageOfNode.set(id, stage);
    return stage;
  };
  const totals: Record<string, number> = {};
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, index) => {
    const stage = stageOf(id);
    if (stage) totals[stage] = (totals[stage] ?? 0) + (deltas[index] ?? 0) / 1000;
  });
  return totals;
}
