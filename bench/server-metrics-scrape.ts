// What reading a server's /metrics costs the load generator, per sample: the whole scrape (undici request, the
// page's bytes, the reading) and the reading alone, in CPU time of this process, for each fixture page
// (test/loadgen/fixtures/server-metrics/: vLLM V1 with one and two engines, V0, SGLang) served by a local HTTP
// server on 127.0.0.1 in a child process (so its CPU is not counted). Side by side in one run. Not part of
// `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/server-metrics-scrape.js [--samples 300]
//
// Prints a markdown table: page size, CPU per scrape (mean and p99) and per reading, wall time per scrape. At the
// default interval of 1 s, the CPU per scrape is the share of one core the scraper takes, in ms per second.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fetchMetricsPage } from '../loadgen/server-metrics/scrape-page.js';
import { readServerPage } from '../loadgen/server-metrics/server-reading.js';

const PAGES = [
  'vllm-v1-005a810.prom',
  'vllm-v1-005a810-dp2-spec.prom',
  'vllm-v0-00c33e8.prom',
  'sglang-93d0487.prom',
];
const FIXTURES = new URL('../../test/loadgen/fixtures/server-metrics/', import.meta.url);

if (process.argv[2] === '--serve') {
  const pages = new Map(PAGES.map((name) => [`/${name}`, readFileSync(new URL(name, FIXTURES))]));
  const server = createServer((req, res) => {
    const page = pages.get(req.url ?? '');
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/plain; version=0.0.4' }).end(page);
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
} else {
  const { values } = parseArgs({ options: { samples: { type: 'string', default: '300' } } });
  const samples = Number(values.samples);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve']);
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const cpuMs = (start: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const p99 = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0;
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    '| page | KiB | CPU per scrape, mean (ms) | p99 (ms) | CPU per reading, mean (ms) | wall per scrape, mean (ms) |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const name of PAGES) {
    const url = `http://127.0.0.1:${port}/${name}`;
    const scrapeCpu: number[] = [];
    const readCpu: number[] = [];
    const wall: number[] = [];
    let bytes = 0;
    for (let i = 0; i < samples + 20; i++) {
      const t0 = performance.now();
      const cpu = process.cpuUsage();
      const fetched = await fetchMetricsPage(url, 2000);
      if (!fetched.ok) throw new Error(fetched.problem);
      const readStart = process.cpuUsage();
      if (readServerPage(fetched.page) === null) throw new Error(`${name} is not a server page`);
      const reading = cpuMs(readStart);
      const scrape = cpuMs(cpu);
      // The first 20 warm the JIT and the connection.
      if (i < 20) continue;
      scrapeCpu.push(scrape);
      readCpu.push(reading);
      wall.push(performance.now() - t0);
      bytes = fetched.page.length;
    }
    console.log(
      `| ${name} | ${(bytes / 1024).toFixed(1)} | ${mean(scrapeCpu).toFixed(3)} | ${p99(scrapeCpu).toFixed(3)} | ${mean(readCpu).toFixed(3)} | ${mean(wall).toFixed(3)} |`,
    );
  }
  child.kill();
}
