/**
 * `tally ask` arguments: the question's words and the flags that say how an unattended run decides
 * what a person would (`--review`, `--approve`), where files go (`--out`), which database it reads
 * (`--db`), which files it shares with the question (`--file`, repeatable) and how it reports (`--json`). Parsed by
 * hand: a mistake is one line naming the flag.
 */

export type ReviewMode = 'accept' | 'discard' | 'stop';
export type ApproveMode = 'run' | 'skip';

export interface AskFlags {
  question: string;
  /** A database URL read in place of DATABASE_URL. */
  db?: string;
  /** Where charts and the report exports are written. */
  out?: string;
  /** How every drafted section (and playbook draft) is decided. Default `accept`. */
  review: ReviewMode;
  /** How every cell held for approval is decided; without it a held cell ends the run. */
  approve?: ApproveMode;
  /** One JSON object on stdout, everything else on stderr. */
  json: boolean;
  /** Files on this machine shared with the question, as a person shares them in Slack or Discord. */
  files: string[];
}

const CHOICES = { '--review': ['accept', 'discard', 'stop'], '--approve': ['run', 'skip'] } as const;
const VALUED = new Set(['--db', '--out', '--review', '--approve', '--file']);

/** The flags, or a one-line message naming what is wrong. */
export function parseAskFlags(words: string[]): AskFlags | string {
  const question: string[] = [];
  const values: Record<string, string> = {};
  const files: string[] = [];
  let json = false;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (word === '--') {
      question.push(...words.slice(index + 1));
      break;
    }
    if (!word.startsWith('--')) {
      question.push(word);
      continue;
    }
    const [flag = word, inline] = splitFlag(word);
    if (flag === '--json' && inline === undefined) {
      json = true;
      continue;
    }
    if (!VALUED.has(flag)) return `unknown flag ${flag}`;
    const value = inline ?? words[index + 1];
    if (inline === undefined) index += 1;
    if (value === undefined || value === '' || value.startsWith('--')) return `${flag} needs a value`;
    const allowed = CHOICES[flag as keyof typeof CHOICES] as readonly string[] | undefined;
    if (allowed && !allowed.includes(value)) return `${flag} ${value}: use ${allowed.join(', ')}`;
    if (flag === '--file') files.push(value);
    else values[flag.slice(2)] = value;
  }
  const text = question.join(' ').trim();
  if (text === '') return 'ask needs a question, e.g. tally ask "Which contract type churns most?"';
  return {
    question: text,
    review: (values.review ?? 'accept') as ReviewMode,
    json,
    files,
    ...(values.db ? { db: values.db } : {}),
    ...(values.out ? { out: values.out } : {}),
    ...(values.approve ? { approve: values.approve as ApproveMode } : {}),
  };
}

/** `--out=DIR` → [`--out`, `DIR`]; `--out` → [`--out`, undefined]. */
function splitFlag(word: string): [string, string | undefined] {
  const equals = word.indexOf('=');
  return equals < 0 ? [word, undefined] : [word.slice(0, equals), word.slice(equals + 1)];
}
