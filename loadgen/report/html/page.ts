// The page around the charts: one HTML file with its style inline and a Content-Security-Policy that forbids
// every fetch and every script, so the report opens offline, from an email attachment or an archived CI
// artefact, and a hostile string in a result file can neither run nor phone home.

import type { Verdict } from '../verdicts.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5a636e; --line: #d8dde3; --better: #0a7a3b; --worse: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1480px; padding: 20px 28px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 22px; margin: 0 0 2px; } h2 { font-size: 17px; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.subtitle { color: var(--muted); margin: 0 0 14px; }
.panels { display: flex; flex-wrap: wrap; gap: 18px 28px; align-items: flex-start; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
.better { color: var(--better); } .worse { color: var(--worse); } .best { font-weight: 700; }
.verdicts { list-style: none; padding: 0; margin: 0; max-width: 1100px; }
.verdicts li { border-left: 4px solid #e69f00; background: #fff8e6; padding: 6px 10px; margin: 0 0 8px; white-space: pre-wrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.verdicts li.ok { border-color: var(--better); background: #eef8f1; font-family: inherit; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(680px, 1fr)); gap: 18px 28px; }
figure.chart { margin: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { display: block; max-width: 100%; height: auto; font-size: 11px; fill: var(--ink); }
svg .grid { stroke: #eceff3; } svg .axis, svg .tick { stroke: #8a939e; } svg .label { font-size: 12px; fill: var(--muted); }
svg .marker { stroke: var(--worse); stroke-width: 1.5; stroke-dasharray: 5 4; } svg .marker-label { fill: var(--worse); font-weight: 600; }
svg .reference { stroke: #8a939e; stroke-dasharray: 3 4; }
.legend { list-style: none; padding: 0; margin: 4px 0 0 64px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.note { color: var(--muted); margin: 4px 0 0 64px; font-size: 12.5px; }
.message { color: var(--muted); }
.cut-short { color: var(--worse); font-weight: 600; }
footer { margin-top: 36px; color: var(--muted); font-size: 12px; }
`;

export interface PageParts {
  title: string;
  subtitle: string;
  /** Already-rendered HTML sections, in order. */
  sections: readonly string[];
}

export function renderPage(parts: PageParts): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(parts.title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(parts.title)}</h1>
<p class="subtitle">${escapeHtml(parts.subtitle)}</p>
${parts.sections.join('\n')}
<footer>Written by tokenmeter. Self-contained: no scripts, no network requests.</footer>
</body></html>
`;
}

export function section(heading: string, body: string): string {
  return `<section><h2>${escapeHtml(heading)}</h2>${body}</section>`;
}

/** Two-column table of settings or figures; values are escaped here. */
export function keyValueTable(
  caption: string,
  rows: ReadonlyArray<readonly [string, string | number | boolean | null]>,
): string {
  const body = rows
    .map(([key, value]) => {
      const numeric = typeof value === 'number';
      return `<tr><th>${escapeHtml(key)}</th><td${numeric ? ' class="num"' : ''}>${show(value)}</td></tr>`;
    })
    .join('');
  return `<table><caption>${escapeHtml(caption)}</caption><tbody>${body}</tbody></table>`;
}

/** The verdicts as printed after the summary, one box each; says so when there are none. */
export function verdictList(list: readonly Verdict[], incompleteNote?: string): string {
  const items =
    list.length === 0
      ? ['<li class="ok">No warnings: every request succeeded and nothing looks off.</li>']
      : list.map((v) => `<li data-kind="${escapeHtml(v.kind)}">${escapeHtml(v.message)}</li>`);
  const note = incompleteNote === undefined ? '' : `<p class="message">${escapeHtml(incompleteNote)}</p>`;
  return `<ul class="verdicts">${items.join('')}</ul>${note}`;
}

// ---- Escaping every string from a result file ----
// Every string that comes from a result file (model names, labels, metadata, error bodies) reaches the page
// through these two functions only. Escaping the five characters below is enough for both text and
// double-quoted attribute values in HTML and inline SVG; the page runs no script, so nothing is ever parsed
// as code even if a value looks like some.

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an element's content or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** Any value from data, stringified then escaped (null and undefined print as an em dash). */
export function show(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return escapeHtml(String(value));
}
