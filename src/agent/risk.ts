/**
 * Which cells need a person's go-ahead under `approve: risky`: package installs and other shell
 * commands, writes outside the workspace, likely long runs, and extractions above the row budget.
 * Pure heuristics over the code text, not a Python parser: they lean towards asking, but a comment
 * never counts, and a call or keyword that only appears inside a string does not either.
 */
import { posix } from 'node:path';

/** Where a cell may write freely: the kernel's workspace and its scratch space. */
const WRITABLE_ROOTS = ['/workspace', '/tmp'];
/** The kernel's working directory: relative paths resolve against it. */
const WORKING_DIRECTORY = '/workspace';
const LONG_SLEEP_SECONDS = 60;
const MANY_ESTIMATORS = 1_000;
const MANY_ITERATIONS = 10 ** 7;
const MANY_FOLDS = 10;
/** Longest example quoted in a reason, in characters. */
const EXAMPLE_CHARS = 60;

/**
 * Why the cell should wait for a person, as a short sentence for the thread (several reasons joined
 * by `; `), or undefined when it can run without asking.
 */
export function assessCode(source: string): string | undefined {
  const cell = views(source);
  const reasons = RULES.map((rule) => rule.check(cell)).filter((reason) => reason !== undefined);
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

/**
 * Why an extraction should wait for a person: it loads more rows than the budget. An unknown
 * estimate is not flagged (the extraction itself still stops at its hard limit).
 */
export function assessExtract(estimatedRows: number | undefined, budgetRows: number): string | undefined {
  if (estimatedRows === undefined || estimatedRows <= budgetRows) return undefined;
  return `loads about ${count(estimatedRows)} rows (budget ${count(budgetRows)})`;
}

interface CellViews {
  /** The cell with every comment blanked to spaces, so offsets still line up with the source. */
  code: string;
  /** The same with the contents of string literals blanked too: where calls and keywords really are. */
  skeleton: string;
}

interface Rule {
  name: string;
  check(cell: CellViews): string | undefined;
}

const RULES: Rule[] = [
  { name: 'installs-packages', check: (cell) => shellReason(cell, 'install') },
  { name: 'downloads-files', check: (cell) => shellReason(cell, 'download') },
  { name: 'runs-shell-commands', check: (cell) => shellReason(cell, 'other') },
  { name: 'writes-outside-workspace', check: writesOutsideWorkspace },
  { name: 'may-run-long', check: mayRunLong },
];

// --- shell commands ---------------------------------------------------------------------------

type ShellKind = 'install' | 'download' | 'other';

const INSTALL_COMMAND = /\b(?:(?:pip3?|conda|mamba|npm)\s+install\b|apt(?:-get)?\s+\S|yum\s+\S|apk\s+add\b)[^;&|]*/;
const DOWNLOAD_COMMAND = /\b(?:curl|wget)\b[^;&|]*/;
const SHELL_CALL = String.raw`(?<![\w.])(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.\w+|get_ipython\(\)\.system)`;

function shellReason(cell: CellViews, kind: ShellKind): string | undefined {
  for (const command of shellCommands(cell)) {
    const install = INSTALL_COMMAND.exec(command);
    const download = DOWNLOAD_COMMAND.exec(command);
    if (kind === 'install' && install) return `installs packages (${example(install[0])})`;
    if (kind === 'download' && download && !install) return `downloads files (${example(download[0])})`;
    if (kind === 'other' && !install && !download) return `runs a shell command (${example(command)})`;
  }
  return undefined;
}

/** A shell escape (`!ls`, `%sx ls`) or a package-manager magic (`%pip install`, or bare `pip install` via automagic). */
const SHELL_LINE = /^\s*(?:!|%(?:sx|system|sc)\s|%?(?:pip3?|conda|mamba)\s+\w)/;
const SHELL_PREFIX = /^\s*(?:!|%(?:sx|system|sc)\s|%)?/;

/** `!` lines, `%pip`-style and bare `pip install` magics, `%%bash` cells, os.system and subprocess calls. */
function shellCommands(cell: CellViews): string[] {
  const commands: string[] = [];
  const lines = cell.code.split('\n');
  const skeletonLines = cell.skeleton.split('\n');
  const first = skeletonLines.findIndex((line) => line.trim() !== '');
  if (/^\s*%%(?:bash|sh|system|script\s+\w+)\b/.test(skeletonLines[first] ?? '')) {
    commands.push(...lines.slice(first + 1).filter((line) => line.trim() !== ''));
  } else {
    skeletonLines.forEach((line, index) => {
      if (SHELL_LINE.test(line)) commands.push((lines[index] ?? '').replace(SHELL_PREFIX, ''));
    });
  }
  for (const call of findCalls(cell, SHELL_CALL)) {
    const words = stringLiterals(call.args[0] ?? '');
    commands.push(words.length > 0 ? words.join(' ') : call.text);
  }
  if (/^\s*from\s+subprocess\s+import\b/m.test(cell.skeleton)) commands.push('from subprocess import …');
  return commands.map((command) => command.trim());
}

// --- writes outside the workspace -------------------------------------------------------------

/** Calls that write, move or delete files, and the positions of the arguments naming those files. */
const WRITERS: Array<{ callee: string; positions: number[] }> = [
  {
    callee: String.raw`\.(?:to_csv|to_excel|to_json|to_parquet|to_pickle|to_feather|to_hdf|to_html|to_stata|savefig|write_image|write_html)`,
    positions: [0],
  },
  { callee: String.raw`(?<![\w.])(?:np|numpy)\.(?:save|savez|savez_compressed|savetxt)`, positions: [0] },
  { callee: String.raw`(?<![\w.])joblib\.dump`, positions: [1] },
  { callee: String.raw`(?<![\w.])os\.(?:remove|unlink|rmdir|removedirs|mkdir|makedirs|truncate)`, positions: [0] },
  { callee: String.raw`(?<![\w.])os\.(?:rename|renames|replace)`, positions: [0, 1] },
  { callee: String.raw`(?<![\w.])os\.(?:symlink|link)`, positions: [1] },
  { callee: String.raw`(?<![\w.])shutil\.(?:copy\w*|unpack_archive)`, positions: [1] },
  { callee: String.raw`(?<![\w.])shutil\.(?:move|rmtree|make_archive)`, positions: [0, 1] },
];

/** Keyword names the writers above use for a path. */
const PATH_KEYWORDS = ['path', 'path_or_buf', 'excel_writer', 'fname', 'file', 'filename', 'dst'];
/** pathlib methods that write, move or delete the file the Path names. */
const PATH_METHODS = new Set(['write_text', 'write_bytes', 'touch', 'mkdir', 'unlink', 'rmdir', 'rename', 'replace']);
const WRITE_MODE = /[wax+]/;

function writesOutsideWorkspace(cell: CellViews): string | undefined {
  const paths: Array<string | undefined> = [];
  for (const writer of WRITERS) {
    for (const call of findCalls(cell, writer.callee)) {
      paths.push(...writer.positions.map((position) => stringValue(positional(call.args, position))));
      paths.push(...PATH_KEYWORDS.map((name) => stringValue(keyword(call.args, name))));
    }
  }
  for (const call of findCalls(cell, String.raw`(?<![\w.])(?:io\.|codecs\.)?open`)) {
    const mode = stringValue(keyword(call.args, 'mode') ?? positional(call.args, 1)) ?? 'r';
    if (WRITE_MODE.test(mode)) paths.push(stringValue(keyword(call.args, 'file') ?? positional(call.args, 0)));
  }
  for (const call of findCalls(cell, String.raw`(?<![\w.])(?:pathlib\.)?Path`)) {
    const method = /^\s*\.(\w+)\s*\(/.exec(cell.skeleton.slice(call.end));
    if (!method?.[1]) continue;
    const { args } = splitArguments(cell, call.end + method[0].length);
    const mode = stringValue(keyword(args, 'mode') ?? positional(args, 0)) ?? 'r';
    if (PATH_METHODS.has(method[1]) || (method[1] === 'open' && WRITE_MODE.test(mode))) {
      paths.push(stringValue(positional(call.args, 0)));
    }
  }
  paths.push(/^\s*%%writefile\s+(?:-a\s+)?(\S+)/.exec(cell.code)?.[1]);
  const outside = paths.find(isOutsideWorkspace);
  return outside === undefined ? undefined : `writes outside the workspace: ${example(outside)}`;
}

/** True for a home path, an absolute path outside the writable roots, or a relative path escaping with `..`. */
function isOutsideWorkspace(path: string | undefined): path is string {
  if (path === undefined || path.trim() === '') return false;
  if (path.startsWith('~')) return true;
  const resolved = posix.normalize(path.startsWith('/') ? path : `${WORKING_DIRECTORY}/${path}`);
  return !WRITABLE_ROOTS.some((root) => resolved === root || resolved.startsWith(`${root}/`));
}

// --- long runs --------------------------------------------------------------------------------

function mayRunLong(cell: CellViews): string | undefined {
  const found: string[] = [];
  for (const call of findCalls(cell, String.raw`(?<![\w.])(?:time\.)?sleep`)) {
    if ((numberValue(call.args[0]) ?? 0) >= LONG_SLEEP_SECONDS) found.push(call.text);
  }
  for (const match of cell.skeleton.matchAll(/\b(?:Halving)?(?:Grid|Randomized)SearchCV(?=\s*\()/g))
    found.push(match[0]);
  for (const match of cell.skeleton.matchAll(/\bn_estimators\s*=\s*([\w.*]+)/g)) {
    if ((numberValue(match[1]) ?? 0) >= MANY_ESTIMATORS) found.push(match[0].replace(/\s+/g, ''));
  }
  for (const call of findCalls(cell, String.raw`(?<![\w.])range`)) {
    if ((numberValue(call.args.length >= 2 ? call.args[1] : call.args[0]) ?? 0) >= MANY_ITERATIONS)
      found.push(call.text);
  }
  if (/^\s*while\s+(?:True|1)\s*:/m.test(cell.skeleton)) found.push('while True');
  for (const call of findCalls(cell, String.raw`(?<![\w.])cross_val(?:idate|_score|_predict)`)) {
    const folds = numberValue(keyword(call.args, 'cv'));
    if (folds !== undefined && folds >= MANY_FOLDS) found.push(`${call.name} with cv=${folds}`);
  }
  const unique = [...new Set(found)].map(example);
  return unique.length > 0 ? `may run long: ${unique.join(', ')}` : undefined;
}

/** A numeric literal or a product or power of them (`10**7`, `2 * 60`, `1e6`, `1_000`, `int(1e7)`). */
function numberValue(expression: string | undefined): number | undefined {
  const text = expression?.replace(/[\s_]/g, '').replace(/^int\((.*)\)$/, '$1');
  if (!text || !/^[\d.eE+*]+$/.test(text)) return undefined;
  let product = 1;
  for (const factor of text.split(/(?<!\*)\*(?!\*)/)) {
    const powers = factor.split('**').map((part) => (part === '' ? Number.NaN : Number(part)));
    if (powers.some(Number.isNaN)) return undefined;
    product *= powers.reduceRight((exponent, base) => base ** exponent);
  }
  return product;
}

// --- reading the code -------------------------------------------------------------------------

/** Comments and string literals, triple-quoted first, so that a `#` inside a string is no comment. */
const COMMENT_OR_STRING = /#[^\n]*|'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g;

/** Splits a cell into its comment-free code and its skeleton (see CellViews). */
function views(source: string): CellViews {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  const withoutComment = (token: string) => (token.startsWith('#') ? blank(token) : token);
  return {
    code: source.replace(COMMENT_OR_STRING, withoutComment),
    skeleton: source.replace(COMMENT_OR_STRING, (token) =>
      token.startsWith('#') ? blank(token) : `${token.charAt(0)}${blank(token.slice(1, -1))}${token.charAt(0)}`,
    ),
  };
}

interface Call {
  name: string;
  /** Top-level arguments as written, trimmed. */
  args: string[];
  /** The whole call, callee to closing parenthesis. */
  text: string;
  /** The index just past the closing parenthesis. */
  end: number;
}

/** Every call whose callee matches `callee` (found in the skeleton, arguments read from the code). */
function findCalls(cell: CellViews, callee: string): Call[] {
  return [...cell.skeleton.matchAll(new RegExp(`(${callee})\\s*\\(`, 'g'))].map((match) => {
    const start = match.index ?? 0;
    const { args, end } = splitArguments(cell, start + match[0].length);
    return { name: match[1] ?? '', args, text: cell.code.slice(start, end).replace(/\s+/g, ' '), end };
  });
}

/** The arguments from `start` (just after `(`) to the matching `)`, split on top-level commas of the skeleton. */
function splitArguments(cell: CellViews, start: number): { args: string[]; end: number } {
  const args: string[] = [];
  let depth = 0;
  let from = start;
  let index = start;
  for (; index < cell.skeleton.length; index += 1) {
    const char = cell.skeleton.charAt(index);
    if (depth === 0 && (char === ',' || char === ')')) {
      args.push(cell.code.slice(from, index).trim());
      from = index + 1;
      if (char === ')') break;
    } else if ('([{'.includes(char)) depth += 1;
    else if (')]}'.includes(char)) depth -= 1;
  }
  if (index >= cell.skeleton.length) args.push(cell.code.slice(from).trim());
  return { args: args.filter((arg) => arg !== ''), end: Math.min(index + 1, cell.code.length) };
}

const KEYWORD_ARGUMENT = /^(\w+)\s*=(?!=)/;

function positional(args: string[], position: number): string | undefined {
  return args.filter((arg) => !KEYWORD_ARGUMENT.test(arg) && !arg.startsWith('*'))[position];
}

function keyword(args: string[], name: string): string | undefined {
  const arg = args.find((candidate) => KEYWORD_ARGUMENT.exec(candidate)?.[1] === name);
  return arg?.replace(KEYWORD_ARGUMENT, '').trim();
}

const STRING_LITERAL = /[rRbBuUfF]{0,2}(['"])((?:\\.|(?!\1)[^\\\n])*)\1/g;

/** The text of a one-line string literal (any r/b/u/f prefix), else undefined. */
function stringValue(expression: string | undefined): string | undefined {
  const literal = expression?.trim() ?? '';
  const match = new RegExp(`^${STRING_LITERAL.source}$`).exec(literal);
  return match?.[2];
}

/** The texts of all one-line string literals in an expression, in order. */
function stringLiterals(expression: string): string[] {
  return [...expression.matchAll(STRING_LITERAL)].map((match) => match[2] ?? '');
}

function example(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > EXAMPLE_CHARS ? `${line.slice(0, EXAMPLE_CHARS - 1)}…` : line;
}

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
