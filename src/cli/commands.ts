// The list of `tokenmeter` commands: each one's name and one-line summary (all the top-level help needs), and how
// to load it. A command's module (its flags, help and work, and everything they import) is loaded only when it is
// the command asked for: importing them all up front cost every command about 200 ms of CPU and 20-28 MB of
// memory at start (serve and sim loaded the load generator's modules, bench the gateway's and the simulator's).
import type { Command } from './command.js';

/** One command as the list knows it. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

/** Every `tokenmeter` command, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'demo',
    summary: 'Simulator + gateway + the bundled sample replayed through it, with the report (no GPU, no key)',
    load: async () => (await import('./demo-command.js')).demoCommand,
  },
  {
    name: 'sim',
    summary: 'Run a vLLM-like OpenAI-compatible simulator (no GPU needed)',
    load: async () => (await import('./sim-command.js')).simCommand,
  },
  {
    name: 'serve',
    summary: 'Run the measurement gateway in front of an OpenAI-compatible upstream',
    load: async () => (await import('./serve-command.js')).serveCommand,
  },
  {
    name: 'bench',
    summary: "Benchmark an OpenAI-compatible server with vLLM's flags and report (open or closed loop)",
    load: async () => (await import('./bench-command.js')).benchCommand,
  },
  {
    name: 'sweep',
    summary:
      'Run the bench at several request rates (or concurrencies) and find where the server stops keeping up',
    load: async () => (await import('./sweep-command.js')).sweepCommand,
  },
  {
    name: 'doctor',
    summary:
      'Check an endpoint the way the troubleshooting guide does: key, proxy, URL, auth, model, backend, stream',
    load: async () => (await import('./doctor-command.js')).doctorCommand,
  },
  {
    name: 'print-config',
    summary:
      'Print what to paste so a client (Claude Code, Cline, Codex, SDKs, vLLM bench, curl) uses the gateway',
    load: async () => (await import('./print-config-command.js')).printConfigCommand,
  },
  {
    name: 'compare',
    summary:
      'Compare saved benchmark results side by side: deltas with confidence intervals, and which run is better',
    load: async () => (await import('./compare-command.js')).compareCommand,
  },
  {
    name: 'merge',
    summary: "Merge a run's shards (bench --shard, --save-result) into one report from their raw records",
    load: async () => (await import('./merge-command.js')).mergeCommand,
  },
  {
    name: 'report',
    summary:
      'Write a self-contained HTML report (charts, settings, verdicts) of a run, a sweep or several runs',
    load: async () => (await import('./report-command.js')).reportCommand,
  },
  {
    name: 'top',
    summary: 'Watch running gateways live: requests/s, success, TTFT and errors per upstream and model',
    load: async () => (await import('./top-command.js')).topCommand,
  },
  {
    name: 'trace',
    summary:
      "Export a gateway's records as an anonymised trace (Mooncake's, or agent sessions); check an agentic trace",
    load: async () => (await import('./trace-command.js')).traceCommand,
  },
];
