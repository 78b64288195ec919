// V8 settings for a process whose work is generating load (`tokenmeter bench`), set once before its first request.
// A load generator allocates many short-lived objects (chunks, events, records) and keeps few of them, yet V8 by
// default grows its young generation to 2 x 16 MiB semi-spaces and recompiles undici's WebAssembly HTTP parser
// (llhttp) with TurboFan once it runs hot, whose compile zones take about 35 MB for the moment they live. Both
// raise peak RSS well above what the run holds; neither is needed to keep up with the streams. Process-wide, so
// only a command that owns its process calls this (never the gateway, whose process serves).
import { setFlagsFromString } from 'node:v8';

export function trimV8ForLoadGeneration(): void {
  // Keep the young generation at its starting size: scavenges run more often, each over a small space whose
  // objects are mostly dead already, so they stay cheap.
  setFlagsFromString('--semi-space-growth-factor=1');
  // Baseline-compiled (Liftoff) WebAssembly only: llhttp parses a few bytes per SSE event, where TurboFan's code
  // gains little and its compilation costs tens of MB.
  setFlagsFromString('--liftoff-only');
  // V8's own trade of speed for memory: the old generation is collected at a smaller growth, and code is
  // optimised less eagerly. The run's work is waiting on sockets, so neither shows in its CPU time.
  setFlagsFromString('--optimize-for-size');
}
