// One simulator's state, built once at start from its configuration: the KV cache and batch scheduler with their
// metrics wired in, the emission clock, the ground-truth store, the protocols it serves and the response chains.
// The server (server.ts) routes requests into it and start-generation.ts runs each one against it.
import { hashSeed, SeededRandom } from '../shared/random.js';
import { BatchScheduler } from './batch-scheduler.js';
import type { SimConfig } from './config.js';
import { EmissionClock } from './emission-clock.js';
import type { GenerationEnvironment } from './generation.js';
import { KvCache } from './kv-cache.js';
import { type KvCapacity, kvCapacity } from './kv-capacity.js';
import { LatenessStats } from './lateness-stats.js';
import { anthropicMessages } from './protocols/anthropic-messages.js';
import { openAIChat, openAICompletions } from './protocols/openai.js';
import { openAIResponses } from './protocols/openai-responses.js';
import type { SimProtocol } from './protocols/protocol.js';
import { TruthStore } from './request-truth.js';
import { SimMetrics } from './sim-metrics.js';
import type { SimSpans } from './sim-spans.js';

export interface SimulatorState {
  readonly config: SimConfig;
  readonly capacity: KvCapacity;
  readonly env: GenerationEnvironment;
  readonly lateness: LatenessStats;
  readonly faultRandom: SeededRandom;
  readonly protocols: ReadonlyMap<string, SimProtocol>;
  readonly responseChains: ResponseChains;
}

/** `spans`: SimSpans.fromConfig's, or null for none. */
export function createSimulatorState(config: SimConfig, spans: SimSpans | null): SimulatorState {
  const metrics = new SimMetrics();
  const lateness = new LatenessStats();
  const engine = SimMetrics.engineLabels(config.servedModelNames[0] as string);
  const { maxNumSeqs, batchSlowdown } = config.timing;
  const capacity = kvCapacity(config);
  const kv = new KvCache(capacity.blocks, config.kv.enablePrefixCaching);
  const scheduler = new BatchScheduler(maxNumSeqs, batchSlowdown, kv, {
    changed({ running, waiting }) {
      metrics.running.set(engine, running);
      metrics.waiting.set(engine, waiting);
    },
    admitted(contextTokens, cachedTokens) {
      // Like vLLM's, counted in tokens, only where prefix caching is on; every (re)admission is one lookup.
      if (!kv.prefixCaching) return;
      for (const counter of metrics.prefixQueries) counter.inc(engine, contextTokens);
      for (const counter of metrics.prefixHits) counter.inc(engine, cachedTokens);
    },
    preempted() {
      metrics.preemptions.inc(engine);
    },
  });
  // Every series exists from the start (at 0), as vLLM's do, so a scraper's baseline sees them all.
  metrics.readKvUsageFrom(() => kv.usage, engine);
  for (const counter of [...metrics.prefixQueries, ...metrics.prefixHits, metrics.preemptions]) {
    counter.inc(engine, 0);
  }
  metrics.running.set(engine, 0);
  metrics.waiting.set(engine, 0);
  if (config.timing.speculativeTokens > 0) metrics.enableSpecDecode(config.timing.speculativeTokens, engine);
  const clock = new EmissionClock((lateMs) => {
    lateness.record(lateMs);
    metrics.lateness.observe(lateMs / 1000);
  });
  const served = [
    openAIChat,
    ...(config.chatOnly ? [] : [openAICompletions]),
    anthropicMessages,
    openAIResponses,
  ];
  return {
    config,
    capacity,
    env: {
      timing: config.timing,
      reasoning: config.reasoning,
      prefixCaching: config.kv.enablePrefixCaching,
      clock,
      scheduler,
      metrics,
      truths: new TruthStore(config.truthCapacity, config.truthLog),
      spans,
    },
    lateness,
    faultRandom: new SeededRandom(hashSeed(config.seed, 'faults')),
    protocols: new Map(served.map((p) => [p.path, p])),
    responseChains: new ResponseChains(config.truthCapacity),
  };
}

// Responses' `previous_response_id`: the simulator stores no responses, so a request that continues one is
// answered from the input it carries, counted alone. What it keeps is each response's count of tool-calling turns
// in its chain (bounded: the oldest are forgotten first), so --max-tool-turns ends a loop that sends only the new
// function_call_output items with previous_response_id. An unknown or forgotten id counts no earlier turns.
export class ResponseChains {
  private readonly toolTurnsById = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** Tool-calling turns in the chain that ends with response `id` (that response's own call included). */
  toolTurns(id: string | undefined): number {
    return id === undefined ? 0 : (this.toolTurnsById.get(id) ?? 0);
  }

  add(id: string, toolTurns: number): void {
    this.toolTurnsById.set(id, toolTurns);
    if (this.toolTurnsById.size > this.capacity) {
      const oldest = this.toolTurnsById.keys().next().value;
      if (oldest !== undefined) this.toolTurnsById.delete(oldest);
    }
  }
}
