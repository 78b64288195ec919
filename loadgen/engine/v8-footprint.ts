// V8 settings for a process whose work is generating load (`tokenmeter bench`), set once before its first request.
// A load generator allocates many short-lived objects (chunks, events, records) and keeps few of them, yet V8 by
// default grows its young generation to 2 x 16 MiB semi-spaces and recompiles undici's WebAssembly HTTP parser
// (llhttp) with TurboFan once it runs hot, whose compile zones take about 35 MB for the moment they live. Both
// raise peak RSS well above what the run holds; neither is needed to keep up with the streams. Process-wide, so
// only a command that owns its process calls this (never the gateway, whose process serves).
//
// Each flag was judged on peak RSS, CPU seconds and TTFT minus the simulator's truth, the run without it against
// the run with all three, alternated against one simulator (2 ms per token, 64/32 tokens; 2026-12-08, a shared
// 2-core box at load average 8-12, medians of 3 rounds; docs/loadgen-reference.md, "Footprint beside vLLM's
// client"). Other flags that can be set at run time were tried and left out: --no-parallel-scavenge (CPU 4.04
// against 3.65 s at C=1024), --heap-growing-percent in place of --optimize-for-size (less RSS saved, no CPU saved);
// --single-threaded-gc cannot be set once V8 runs.
import { setFlagsFromString } from 'node:v8';

export function trimV8ForLoadGeneration(): void {
  // Keep the young generation at its starting size: scavenges run more often, each over a small space. Without it,
  // at C=1024: RSS 104 against 93 MB, CPU 4.12 against 3.67 s, and TTFT further from the truth.
  setFlagsFromString('--semi-space-growth-factor=1');
  // Baseline-compiled (Liftoff) WebAssembly only: llhttp parses a few bytes per SSE event, where TurboFan's code
  // gains little and its compilation costs tens of MB and CPU. Without it, at C=1024: RSS 117 against 93 MB, CPU
  // 4.18 against 3.65 s.
  setFlagsFromString('--liftoff-only');
  // V8's own trade of speed for memory: the old generation is collected at a smaller growth, and code is
  // optimised less eagerly. It does cost CPU, about 15%: without it, RSS 97 against 79 MB at C=256 and 139
  // against 93 MB at C=1024, CPU 1.54 against 1.81 s and 3.08 against 3.67 s. Kept, because the RSS is the
  // larger and the firmer gap to vLLM's client (without it bench's peak passes 1.5x vLLM's client's and 100 MB).
  setFlagsFromString('--optimize-for-size');
}
