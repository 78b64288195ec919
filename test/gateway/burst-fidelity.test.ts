// Stamping fidelity under bursts: when 20 streamed requests arrive at once, a busy event loop stamps the upstream's
// response headers (or its first content) late, and TTFT - TTFB drifts from what the upstream did. The gateway is
// compared with the leanest Node proxy (bench/helpers/leanest-proxy.ts with a tap stamping the same two moments:
// the upstream's headers and the first chunk with content), in the same process and the same run, bursts
// alternated. Per request, stamped (TTFT - TTFB) is set against the upstream's own (first content written -
// headers written), taken on its clock in its own process (helpers/burst-upstream.ts) and matched by x-request-id.
//
// The comparison is relative because on a shared 2-core box even the leanest proxy stamps late at times. Measured
// for issue 9 (160 streams each): leanest proxy mean 0.8-1.1 ms, p95 2.2-2.5 ms; the gateway before its
// dispatch-handler rewrite mean 1.9-2.9 ms, p95 5.3-7.0 ms. Allowed: the gateway's mean within 0.5 ms of the
// leanest proxy's, its p95 within 2 ms. 400 streams each (20 bursts, about 4 s on a quiet box) because a burst
// shares its fate: one preemption of the test's process delays all 20 of its stamps; for the same reason the
// measurement is taken five times and judged on the median of the five (not the best): a gateway that stamps
// worse misses in most measurements, a preemption or a busy neighbour spoils one or two. (Three were too few: in
// a suite run beside other work at load average 2.3, two of three attempts came out at p95 4.2-4.4 ms against the
// leanest proxy's 1.7-1.8 and the third at 1.2 against 1.4.) When other work saturates the cores (load average
// above 4 on 2 cores) both distributions widen together, to p95s of 15-70 ms.
//
// The same bursts check the gateway's histograms, which are what a dashboard shows: the mean of its TTFT
// histogram minus the mean of its TTFB histogram (their _sum / _count over the measured requests) within 1.5 ms of
// the upstream's mean (first content - headers) for the same requests, again on the median of the five.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { type LeanestProxy, type ProxyTap, startLeanestProxy } from '../../bench/helpers/leanest-proxy.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';

const BURST = 20;
const WARMUP_BURSTS = 2;
const MEASURED_BURSTS = 20;
const FIRST_CONTENT_MS = 20;
const GAP_MS = 5;
const CONTENT_CHUNKS = 4;
const MEAN_SLACK_MS = 0.5;
const P95_SLACK_MS = 2;
const ATTEMPTS = 5;
const HISTOGRAM_SLACK_MS = 1.5;
/** The upstream's content chunks say `tok0`, `tok1`, ...; nothing else it sends does. */
const CONTENT_MARK = '"content":"tok';

let upstream: ChildProcess;
let upstreamUrl: string;
let gateway: TestGateway;
let leanest: LeanestProxy;
const client = new Agent({ keepAliveTimeout: 30_000 });
/** The leanest proxy's stamps per request id: [headers, first content]. */
const leanStamps = new Map<string, [number, number]>();

const tap: ProxyTap = {
  onResponseStart(req: IncomingMessage) {
    leanStamps.set(String(req.headers['x-request-id']), [performance.now(), Number.NaN]);
  },
  onResponseData(req: IncomingMessage, chunk: Buffer) {
    const at = performance.now();
    const stamps = leanStamps.get(String(req.headers['x-request-id']));
    if (stamps !== undefined && Number.isNaN(stamps[1]) && chunk.includes(CONTENT_MARK)) stamps[1] = at;
  },
};

before(async () => {
  const script = fileURLToPath(new URL('./helpers/burst-upstream.js', import.meta.url));
  upstream = spawn(
    process.execPath,
    [script, String(FIRST_CONTENT_MS), String(GAP_MS), String(CONTENT_CHUNKS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout?.on('data', (d: Buffer) => {
      const found = /PORT (\d+)/.exec(d.toString())?.[1];
      if (found) resolve(found);
    });
    upstream.once('exit', (code) => reject(new Error(`burst upstream exited with ${code}`)));
  });
  upstreamUrl = `http://127.0.0.1:${port}`;
  gateway = await startGateway({ upstreams: [{ name: 'burst', baseUrl: upstreamUrl, keyless: true }] });
  leanest = await startLeanestProxy(upstreamUrl, { tap });
});

after(async () => {
  await gateway?.close();
  await leanest?.close();
  await client.close();
  upstream?.stdin?.end();
});

async function stream(url: string, id: string): Promise<void> {
  const response = await request(`${url}/v1/chat/completions`, {
    dispatcher: client,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}',
  });
  const text = await response.body.text();
  assert.equal(response.statusCode, 200, `${id}: ${text}`);
  assert.ok(text.endsWith('data: [DONE]\n\n'), `${id} ended with [DONE]`);
}

interface Summary {
  readonly n: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  /** Mean of the signed errors: below 0 when the headers are stamped late, above 0 when the content is. */
  readonly bias: number;
}

/** Nearest-rank percentiles of the absolute errors, and the mean of the signed ones. */
function summarize(signed: readonly number[]): Summary {
  const sorted = Float64Array.from(signed, Math.abs).sort();
  const at = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
  const sum = (values: Iterable<number>): number => {
    let total = 0;
    for (const v of values) total += v;
    return total;
  };
  return {
    n: sorted.length,
    mean: sum(sorted) / sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    bias: sum(signed) / signed.length,
  };
}

const show = (name: string, s: Summary): string =>
  `${name}: n ${s.n}, mean ${s.mean.toFixed(3)} ms, p50 ${s.p50.toFixed(3)} ms, p95 ${s.p95.toFixed(3)} ms, max ${s.max.toFixed(3)} ms (signed mean ${s.bias.toFixed(3)} ms)`;

interface Attempt {
  readonly gateway: Summary;
  readonly leanest: Summary;
  /** The gateway's histograms: mean TTFT - mean TTFB over the measured requests, and the upstream's mean. */
  readonly histogramMs: number;
  readonly truthMs: number;
}

/** The sum and count of a histogram over the gateway's primary requests, from its /metrics page. */
async function histogramTotals(name: string): Promise<{ sum: number; count: number }> {
  const page = await (await request(`${gateway.url}/metrics`, { dispatcher: client })).body.text();
  const read = (suffix: string): number => {
    const line = page
      .split('\n')
      .find((l) => l.startsWith(`${name}_${suffix}{`) && l.includes('role="primary"'));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  };
  return { sum: read('sum'), count: read('count') };
}

async function firstTokenTotals(): Promise<{
  ttft: { sum: number; count: number };
  ttfb: { sum: number; count: number };
}> {
  return {
    ttft: await histogramTotals('tokenmeter_time_to_first_token_seconds'),
    ttfb: await histogramTotals('tokenmeter_time_to_first_byte_seconds'),
  };
}

/** One measurement: warm-up bursts, then MEASURED_BURSTS a side, alternated, each stamp matched with the truth. */
async function measure(attempt: number): Promise<Attempt> {
  const sides = [
    { name: 'gateway', url: gateway.url, ids: [] as string[] },
    { name: 'leanest', url: leanest.url, ids: [] as string[] },
  ];
  let before = { ttft: { sum: 0, count: 0 }, ttfb: { sum: 0, count: 0 } };
  for (let burst = 0; burst < WARMUP_BURSTS + MEASURED_BURSTS; burst++) {
    if (burst === WARMUP_BURSTS) {
      // The warm-up's records are in the histograms once each response closed (just after its client read it).
      await Promise.race([
        gateway.recordsAfter(attempt * (WARMUP_BURSTS + MEASURED_BURSTS) * BURST + WARMUP_BURSTS * BURST),
        delay(5_000, undefined, { ref: false }),
      ]);
      before = await firstTokenTotals();
    }
    for (const side of burst % 2 === 0 ? sides : [...sides].reverse()) {
      const ids = Array.from({ length: BURST }, (_, i) => `burst-${attempt}-${side.name}-${burst}-${i}`);
      await Promise.all(ids.map((id) => stream(side.url, id)));
      if (burst >= WARMUP_BURSTS) side.ids.push(...ids);
    }
  }
  const truth = (await (
    await request(`${upstreamUrl}/stamps`, { dispatcher: client })
  ).body.json()) as Record<string, [number, number]>;
  // A record is written when its response closes, just after the client read the end; a missing one is named
  // below rather than waited for until the test times out.
  await Promise.race([
    gateway.recordsAfter((attempt + 1) * (WARMUP_BURSTS + MEASURED_BURSTS) * BURST),
    delay(5_000, undefined, { ref: false }),
  ]);
  const after = await firstTokenTotals();
  const gatewayStamped = new Map(
    gateway.records.map((r) => [r.requestId, (r.ttftMs ?? NaN) - (r.ttfbMs ?? NaN)]),
  );
  const leanStamped = new Map(
    [...leanStamps].map(([id, [headersAt, contentAt]]) => [id, contentAt - headersAt]),
  );
  const errors = (ids: readonly string[], stamped: ReadonlyMap<string, number>): number[] => {
    const unmatched = ids.filter((id) => truth[id] === undefined || !Number.isFinite(stamped.get(id)));
    assert.deepEqual(unmatched, [], 'every request was stamped by both the upstream and the proxy');
    return ids.map((id) => {
      const [headersAt, contentAt] = truth[id] as [number, number];
      return (stamped.get(id) as number) - (contentAt - headersAt);
    });
  };
  const [gatewaySide, leanSide] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const ttftCount = after.ttft.count - before.ttft.count;
  const ttfbCount = after.ttfb.count - before.ttfb.count;
  assert.equal(ttftCount, MEASURED_BURSTS * BURST, 'every measured request is in the TTFT histogram');
  assert.equal(ttfbCount, MEASURED_BURSTS * BURST, 'every measured request is in the TTFB histogram');
  const histogramMs =
    ((after.ttft.sum - before.ttft.sum) / ttftCount - (after.ttfb.sum - before.ttfb.sum) / ttfbCount) * 1000;
  let truthSum = 0;
  for (const id of gatewaySide.ids) {
    const [headersAt, contentAt] = truth[id] as [number, number];
    truthSum += contentAt - headersAt;
  }
  const result = {
    gateway: summarize(errors(gatewaySide.ids, gatewayStamped)),
    leanest: summarize(errors(leanSide.ids, leanStamped)),
    histogramMs,
    truthMs: truthSum / gatewaySide.ids.length,
  };
  assert.equal(result.gateway.n, MEASURED_BURSTS * BURST);
  assert.equal(result.leanest.n, MEASURED_BURSTS * BURST);
  return result;
}

/** The middle value of an odd number of measurements. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) / 2] as number;
}

test('under bursts of 20 streams, the gateway stamps TTFT - TTFB about as well as the leanest Node proxy', {
  timeout: 120_000,
}, async (t) => {
  const attempts: Attempt[] = [];
  while (attempts.length < ATTEMPTS) attempts.push(await measure(attempts.length));
  const meanExcess = median(attempts.map((a) => a.gateway.mean - a.leanest.mean));
  const p95Excess = median(attempts.map((a) => a.gateway.p95 - a.leanest.p95));
  const histogramError = median(attempts.map((a) => Math.abs(a.histogramMs - a.truthMs)));
  const all = attempts
    .map(
      (a, i) =>
        `attempt ${i + 1}\n  ${show('gateway', a.gateway)}\n  ${show('leanest', a.leanest)}\n  gateway histograms: mean TTFT - mean TTFB ${a.histogramMs.toFixed(3)} ms, upstream's ${a.truthMs.toFixed(3)} ms`,
    )
    .join('\n');
  // The histograms' error is the gateway's signed mean error; the leanest proxy's, the same quantity for it, says
  // how much of it the box's load alone explains.
  const leanBias = median(attempts.map((a) => Math.abs(a.leanest.bias)));
  const medians = `medians over ${ATTEMPTS}: gateway mean - leanest mean ${meanExcess.toFixed(3)} ms, gateway p95 - leanest p95 ${p95Excess.toFixed(3)} ms, |histograms - upstream| ${histogramError.toFixed(3)} ms (the leanest proxy's |signed mean| ${leanBias.toFixed(3)} ms); load average ${loadavg()[0]?.toFixed(1)}`;
  t.diagnostic(`|stamped (TTFT - TTFB) - upstream's (first content - headers)|\n${all}\n${medians}`);
  assert.ok(
    meanExcess <= MEAN_SLACK_MS && p95Excess <= P95_SLACK_MS,
    `on the median of ${ATTEMPTS} measurements, the gateway's mean error was more than ${MEAN_SLACK_MS} ms or its p95 more than ${P95_SLACK_MS} ms above the leanest proxy's\n${all}\n${medians}`,
  );
  assert.ok(
    histogramError <= HISTOGRAM_SLACK_MS,
    `on the median of ${ATTEMPTS} measurements, the gateway's TTFT histogram mean minus its TTFB mean was more than ${HISTOGRAM_SLACK_MS} ms from the upstream's first content minus headers\n${all}\n${medians}`,
  );
});
