/** The run browser's one stylesheet (served as /style.css, written as style.css by the static export). */
export const STYLE = `
:root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --bg: #fff; --gold: #fff6d6; --add: #e6ffec; --del: #ffebe9; --hunk: #ddf4ff; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
nav { padding: 8px 16px; border-bottom: 1px solid var(--line); background: #f5f5f7; }
nav a { margin-right: 16px; font-weight: 600; }
main { padding: 8px 16px 48px; max-width: 1400px; }
h1 { font-size: 20px; margin: 12px 0; word-break: break-all; }
h2 { font-size: 16px; margin: 20px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
a { color: #0058b0; text-decoration: none; } a:hover { text-decoration: underline; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0; font-size: 12.5px; }
pre.log { max-height: 480px; overflow-y: auto; }
pre.diff span { display: block; } .add { background: var(--add); } .del { background: var(--del); } .hunk { background: var(--hunk); color: #0550ae; } .file { font-weight: 600; }
table { border-collapse: collapse; margin: 6px 0; } th, td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } td.why { color: var(--muted); max-width: 420px; }
tr.gold td { background: var(--gold); } tr.current td { font-weight: 600; }
.muted { color: var(--muted); font-weight: normal; } .warn { color: #b3261e; }
.cat { display: inline-block; padding: 0 6px; border-radius: 8px; background: #eee; font-size: 12px; }
.cat-resolved { background: #d7f5dd; } .cat-file, .cat-function, .cat-line { background: #ffe2c6; } .cat-patch-generation { background: #ffd8d6; }
.cat-empty-patch { background: #e4e4e4; } .cat-evaluation-error, .cat-budget-exhausted { background: #f1d7f5; } .cat-not-evaluated, .cat-not-reached { background: #fff; border: 1px dashed var(--line); }
.filters label { margin-right: 10px; } .pager a { margin: 0 6px; }
.msg { border-left: 3px solid var(--line); padding-left: 8px; margin: 6px 0; } .msg-assistant { border-color: #6f42c1; } .msg-system { border-color: #999; }
.role { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; margin-top: 4px; }
.step { margin: 8px 0; } .step-head { font-weight: 600; } .vote { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin: 8px 0; } .vote.winner { border-color: #1a7f37; border-width: 2px; }
li.fail { color: #b3261e; } li.pass { color: #1a7f37; }
details > summary { cursor: pointer; color: #0058b0; } section.run { margin-bottom: 16px; }
`;
