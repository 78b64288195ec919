// The HTML reports escape everything from the data and forbid scripts and fetches in the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRun } from '../../loadgen/compare/run-records.js';
import { escapeHtml, show } from '../../loadgen/report/html/page.js';
import { renderHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { HOSTILE_BODY, HOSTILE_MODEL, hostedRun, localRun } from './helpers/report-fixtures.js';

test('escapeHtml covers text and double- or single-quoted attributes', () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&amp;</a>`),
    '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
  );
  assert.equal(show(null), '—');
  assert.equal(show(3.5), '3.5');
});

test('model names, labels, metadata and error bodies from the data never become markup', async () => {
  const hosted = hostedRun();
  hosted.json['note</td><script>'] = '<iframe src="http://example.com">';
  const pages = [
    renderHtmlReport('run', { result: localRun().json, source: '<b>file</b>.json' }),
    renderHtmlReport('run', { result: hosted.json }),
    renderHtmlReport('compare', { runs: await Promise.all([localRun(), hosted].map(loadRun)) }),
  ];
  for (const html of pages) {
    assert.doesNotMatch(html, /<script|<img|<iframe|onerror="|<b>file/i);
    assert.equal(html.match(/<style>/g)?.length, 1, 'only our own style element');
  }
  assert.ok(pages[0]?.includes(escapeHtml(HOSTILE_BODY)), 'the error body is shown, escaped');
  assert.ok(pages[1]?.includes(escapeHtml(HOSTILE_MODEL)), 'the model is shown, escaped');
  assert.ok(pages[1]?.includes('metadata: note&lt;/td&gt;&lt;script&gt;'), 'metadata keys are escaped too');
});

test('the page forbids scripts and fetches with a Content-Security-Policy and loads nothing external', () => {
  const html = renderHtmlReport('run', { result: localRun().json });
  assert.match(
    html,
    /http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"/,
  );
  assert.doesNotMatch(html, /\b(src|href)="(?!data:)/, 'no src or href other than data: URLs');
  assert.doesNotMatch(html, /https?:\/\//, 'no URL at all');
});
