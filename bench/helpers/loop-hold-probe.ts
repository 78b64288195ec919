// Preloaded into a gateway child (`node --import <this file's URL>`, see spawn-gateway.ts) to measure how long
// the gateway's own work holds its event loop, apart from the time the operating system gives its CPU to other
// processes. A wall-clock measure (a stream's gaps, monitorEventLoopDelay) counts both, and on a shared machine
// the second dominates: on the 2-core development box at load average 12, a busy process got 27 ms of CPU in
// 200 ms. So this reads the main thread's time on the CPU (/proc/thread-self/schedstat, nanoseconds, Linux) at
// every turn of a 1 ms timer: the most it grew between two turns is the longest the loop ran without coming
// back to its timers, whatever the wait for a CPU added. The wall-clock gap between turns is kept beside it.
//
// SIGUSR2 writes both maxima since the last SIGUSR2 to $TOKENMETER_LOOP_PROBE_FILE as one JSON object (with a
// sequence number, so a reader can tell a new report from the last) and starts over. Test and benchmark use only:
// reading /proc every millisecond costs the gateway a few percent of a core.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface LoopHoldReport {
  readonly seq: number;
  /** The most the main thread's CPU time grew between two turns of the timer, ms. */
  readonly maxHeldMs: number;
  /** The longest wall-clock time between two turns, ms: the held time plus the wait for a CPU. */
  readonly maxGapMs: number;
}

export const LOOP_PROBE_FILE_ENV = 'TOKENMETER_LOOP_PROBE_FILE';

function onCpuNs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]);
}

const file = process.env[LOOP_PROBE_FILE_ENV];
if (file !== undefined && process.platform === 'linux') {
  let seq = 0;
  let maxHeldMs = 0;
  let maxGapMs = 0;
  let lastCpu = onCpuNs();
  let lastWall = performance.now();
  setInterval(() => {
    const cpu = onCpuNs();
    const wall = performance.now();
    maxHeldMs = Math.max(maxHeldMs, (cpu - lastCpu) / 1e6);
    maxGapMs = Math.max(maxGapMs, wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
  }, 1).unref();
  process.on('SIGUSR2', () => {
    const report: LoopHoldReport = { seq: ++seq, maxHeldMs, maxGapMs };
    writeFileSync(file, JSON.stringify(report));
    maxHeldMs = 0;
    maxGapMs = 0;
  });
}
