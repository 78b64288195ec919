// Each kind of HTML report opened in a real headless Chromium from a file:// URL: no console errors, no
// request but the file itself, every chart drew marks with a visible size, hostile strings stayed text, and a
// screenshot per report is kept under test-artifacts/. Skipped (with the reason) without Chromium, except
// under CI, where a missing browser is a failure.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromiumMissing, launchChromium } from './helpers/chromium.js';
import { HOSTILE_MODEL, type ReportKind, writeAllReports } from './helpers/report-fixtures.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const EXPECTED_CHARTS: Record<ReportKind, string[]> = {
  run: [
    'ttft-cdf',
    'e2el-cdf',
    'itl-histogram',
    'ttft-over-time',
    'concurrency-over-time',
    'tokens-per-second',
    'timeline',
    'server-client-ttft',
    'server-queue',
    'server-kv',
  ],
  sweep: ['sweep-achieved', 'sweep-ttft', 'sweep-throughput', 'sweep-success', 'sweep-pareto'],
  compare: ['ttft-cdf', 'e2el-cdf', 'itl-histogram', 'ttft-over-time', 'tokens-per-second'],
};

interface ChartState {
  id: string;
  marks: number;
  /** Rendered area of the marks in CSS pixels: zero would mean they exist but drew nothing visible. */
  markArea: number;
  width: number;
  height: number;
  empty: boolean;
}

async function openReport(browser: Browser, kind: ReportKind, path: string): Promise<void> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  const url = pathToFileURL(path).href;
  await page.goto(url, { waitUntil: 'load' });

  const charts = await page.$$eval('figure.chart', (figures) =>
    figures.map((figure) => {
      const svg = figure.querySelector('svg');
      const box = svg?.getBoundingClientRect();
      let markArea = 0;
      for (const mark of figure.querySelectorAll('.mark')) {
        const r = mark.getBoundingClientRect();
        markArea += Math.max(r.width, 1) * Math.max(r.height, 1);
      }
      return {
        id: figure.getAttribute('data-chart') ?? '',
        marks: figure.querySelectorAll('.mark').length,
        markArea,
        width: box?.width ?? 0,
        height: box?.height ?? 0,
        empty: figure.hasAttribute('data-empty'),
      };
    }),
  );
  // The timeline's bars (one group per request drawn) and the Pareto chart's level points and frontier line.
  const count = (selector: string): Promise<number> => page.locator(selector).count();
  const pictures = {
    timelineRows: await count('figure[data-chart="timeline"] g.timeline-request'),
    timelineGaps: await count('figure[data-chart="timeline"] rect.gap'),
    timelineNote:
      (await count('figure[data-chart="timeline"] .note')) === 0
        ? ''
        : ((await page.locator('figure[data-chart="timeline"] .note').textContent()) ?? ''),
    paretoPoints: await count('figure[data-chart="sweep-pareto"] g[data-series="level"] .mark'),
    frontier: await count('figure[data-chart="sweep-pareto"] path[data-series="Pareto frontier"]'),
  };
  const injected = await page.$$eval('script, img, iframe, object', (found) => found.length);
  const title = await page.title();
  const bodyText = (await page.locator('body').textContent()) ?? '';
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `report-${kind}.png`), fullPage: true });
  await page.close();

  assert.deepEqual(errors, [], 'no console errors or warnings');
  assert.deepEqual(requests, [url], 'no request other than the file itself');
  assert.deepEqual(
    charts.map((c: ChartState) => c.id),
    EXPECTED_CHARTS[kind],
  );
  for (const chart of charts as ChartState[]) {
    assert.ok(!chart.empty && chart.marks > 0, `${kind}/${chart.id} drew marks`);
    assert.ok(
      chart.markArea > 0 && chart.width > 300 && chart.height > 100,
      `${kind}/${chart.id} is visible`,
    );
  }
  if (kind === 'run') {
    // 240 requests, 4 failed: 236 drawable, sampled to the cap of 150, and the note says so.
    assert.equal(pictures.timelineRows, 150);
    assert.ok(pictures.timelineGaps >= 150, `${pictures.timelineGaps} gap segments`);
    assert.match(
      pictures.timelineNote,
      /^150 of 236 completed requests drawn, evenly spaced in send order\./,
    );
  }
  if (kind === 'sweep') {
    assert.equal(pictures.paretoPoints, 5, 'one point per level');
    assert.equal(pictures.frontier, 1, 'the frontier drawn');
  }
  assert.equal(injected, 0, 'hostile strings created no elements');
  assert.match(title, /^tokenmeter /, 'title not rewritten by injected script');
  if (kind === 'compare') assert.ok(bodyText.includes(HOSTILE_MODEL), 'hostile model name shown as text');
  if (kind === 'run') assert.ok(bodyText.includes('<script>alert(1)</script>'), 'error body shown as text');
}

test('HTML reports in headless Chromium: offline, error-free, every chart drawn, screenshot kept', async (t) => {
  const missing = chromiumMissing();
  if (missing !== null) {
    if (process.env['CI']) assert.fail(`CI needs Chromium for the report browser test: ${missing}`);
    process.stdout.write(`# skipping the browser test: ${missing}\n`);
    t.skip(missing);
    return;
  }
  const folder = await mkdtemp(join(tmpdir(), 'tokenmeter-reports-'));
  const browser = await launchChromium();
  try {
    const paths = await writeAllReports(folder);
    for (const kind of ['run', 'sweep', 'compare'] as const) {
      await t.test(`${kind} report`, () => openReport(browser, kind, paths[kind]));
    }
  } finally {
    await browser.close();
    await rm(folder, { recursive: true, force: true });
  }
});
