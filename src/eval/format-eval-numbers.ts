/** How the eval report and `--compare` write numbers, so both round the same way. */
import type { EvalPlaybookChoice } from './eval-case.js';

/** DABench's levels, easiest first. */
const LEVEL_ORDER = ['easy', 'medium', 'hard'];

/** `78.7%`; a dash when there was nothing to measure (a run of no cases). */
export function formatPercent(fraction: number): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(1)}%` : '—';
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** `1,234,567`. */
export function formatCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** `97.5% (39 of 40)`: the share of figures grounded, and of how many; `no figures` when none were stated. */
export function formatGrounded(grounding: { figures: number; grounded: number }): string {
  if (grounding.figures === 0) return 'no figures';
  return `${formatPercent(grounding.grounded / grounding.figures)} (${formatCount(grounding.grounded)} of ${formatCount(grounding.figures)})`;
}

/**
 * `precision 100.0%, recall 91.7% over 13 cases`: the playbook choice of a run, with how the cases
 * went wrong when some did (`1 wrong playbook, 2 none where one fits, 1 where none fits`).
 */
export function formatPlaybookChoice(choice: EvalPlaybookChoice): string {
  const misses = [
    choice.wrong > 0 ? `${formatCount(choice.wrong)} wrong playbook` : '',
    choice.falseNegatives > 0 ? `${formatCount(choice.falseNegatives)} none where one fits` : '',
    choice.falsePositives > 0 ? `${formatCount(choice.falsePositives)} where none fits` : '',
  ].filter(Boolean);
  const cases = `${formatCount(choice.cases)} ${choice.cases === 1 ? 'case' : 'cases'}`;
  return `precision ${formatPercent(choice.precision)}, recall ${formatPercent(choice.recall)} over ${cases}${
    misses.length > 0 ? ` (${misses.join(', ')})` : ''
  }`;
}

/** `$1.2346`; a dash when no price table named the model (TALLY_MODEL_PRICES). */
export function formatCost(costUsd: number | undefined): string {
  return costUsd === undefined ? '—' : `$${costUsd.toFixed(4)}`;
}

/** Levels in their natural order (easy, medium, hard), other names after them alphabetically. */
export function sortLevels(levels: Iterable<string>): string[] {
  const rank = (level: string) => {
    const index = LEVEL_ORDER.indexOf(level);
    return index === -1 ? LEVEL_ORDER.length : index;
  };
  return [...new Set(levels)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** A share as a percentage; a dash when it was not measured. */
export function formatShare(share: number | undefined): string {
  return share === undefined ? '—' : formatPercent(share);
}
