/**
 * The look of the `tally eval` HTML page (eval-report-html.ts) and the Content-Security-Policy it is served
 * under: inline styles only, nothing loaded, nothing run.
 */

export const EVAL_REPORT_STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --good: #1a7f37; --bad: #cf222e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 64rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.7rem; margin: 0 0 .75rem; }
h2 { font-size: 1.3rem; margin: 2.25rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.75rem 0 .4rem; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: .9rem; }
dl.header dt { font-weight: 600; color: var(--muted); } dl.header dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th, tbody th[colspan] { background: var(--soft); }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table#statuses, table#playbook-choice { width: auto; min-width: 20rem; }
h3 .note { font-weight: 400; }
tr.this-run { font-weight: 600; }
.yes { color: var(--good); font-weight: 600; } .no { color: var(--bad); font-weight: 600; }
.note { color: var(--muted); font-size: .88rem; }
code, pre { font: .82rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td code { white-space: pre-wrap; word-break: break-word; }
details { margin: .5rem 0 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); }
summary { cursor: pointer; padding: .4rem .75rem; font-weight: 600; }
pre { margin: 0; padding: .75rem; max-height: 40rem; overflow: auto; background: #fff; white-space: pre-wrap; word-break: break-word; }
`;

/** Nothing loads (not even a font or an image URL) and no script runs, whatever a transcript holds. */
export const EVAL_REPORT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
