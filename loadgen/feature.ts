// The contract between a bench run and each of its optional features: one module per feature implements
// RunFeature, and the registry (loadgen/features.ts) lists them. The
// run, the aggregation, the result JSON, the text report, the shard merge and the sweep iterate that list instead
// of naming features, so adding a feature means one module and one line in the list.
//
// A feature's life in a run, in the order the backbone calls it (every hook but settingsOf and aggregate is optional):
//   settingsOf its settings out of the run's, undefined when the run does not use it.
//   prepare   before the schedule is split into shards: may mark requests (a planned cancel's delay). Pure.
//   start     before the first request is sent: may read beside the run (a scraper) and watch its records;
//             returns a FeatureRun, whose stop() is awaited after the drain (or an error) and whose part(t0) is
//             what it saw, on the run's clock.
//   aggregate after the run, pure, on the records: the feature's part of the figures, given what its FeatureRun
//             saw (or nothing). A shard merge calls it on the union's records with the part merge() made of the
//             shards' parts, so a merged run's part is computed as a one-process run's is.
//   merge     the shards' parts (each read back from its result JSON) as one run's.
//   json      its keys under the result JSON's "tokenmeter" key, written, and its part read back from a saved
//             result (merge, compare and report read old files through it).
//   report    its lines in the text report, at a slot (a place the backbone's report leaves for features).
//   html      its section of the run's HTML page, from its part read back from the saved result, at a slot.
//   vllm      what it adds to vLLM's own summary block and top-level result keys (speculative decoding).
//   stopReason why the feature stopped the run, when it did: a sweep level so stopped fell behind, and bench exits
//             with its own status.
//
// Parts travel in FeatureParts, keyed by the feature; partOf(parts, feature) reads one back, typed. A feature's
// settings are its own type, which settingsOf takes out of the fields of the run's settings it names (RunSettings,
// structurally), so a feature module never imports the bench's settings; bench's registry has the compiler check
// BenchSettings against what each feature names.
//
// The run's records are the backbone's; a feature never holds them twice. Its part holds what its presenters need.

import type { JsonValue, JsonValueObject } from '../src/shared/json-object.js';
import type { PreparedRequest } from './engine/engine.js';
import type { GatewaySide } from './gateway-timings.js';
import type { RequestRecord } from './record.js';
import type { VllmRunSections } from './report/vllm-summary.js';
import type { ServerSample } from './server-metrics/server-scraper.js';

/** What the run offers a feature that reads beside it. */
export interface FeatureRunContext {
  /** The target's origin (scheme, host, port). */
  readonly origin: string;
  /** The intended send offsets (ms from t = 0) of an open-loop run; empty when the load sets its own pace. */
  readonly dueMs: readonly number[];
  /** performance.now() of t = 0 as far as it is known before the engine starts (a shared start instant). */
  readonly t0Ms: number;
  /** Stops sending and cancels what is in flight, as an early stop does. */
  stopRun(): void;
  /** The server's /metrics samples through the run: one feature publishes them, others may listen. */
  readonly serverSamples: SampleChannel<ServerSample>;
}

/** A feature at work during one run. */
export interface FeatureRun<Live> {
  /** Each record, as its request ends; `runStartMs` is performance.now() of the run's t = 0. */
  onRecord?(record: RequestRecord, runStartMs: number): void;
  /** After the drain, or after an error: stop reading (its last sample comes here). */
  stop(): Promise<void>;
  /** What it saw, with the run's t = 0 (performance.now()); undefined when nothing. */
  seen(runStartedAtMs: number): Live | undefined;
}

/** The records a feature's aggregate reads. */
export interface FeatureRecords {
  /** Every record of the run, in index order. */
  readonly all: readonly RequestRecord[];
  /** Those the figures are computed on (without the planned cancels and what an interruption cut). */
  readonly measured: readonly RequestRecord[];
  /** The gateway's records of the run, when the caller holds them (the demo's gateway runs in its process). */
  readonly gatewayRecords?: readonly GatewaySide[];
}

/** The places in the text report where features' lines go, in the report's order. */
export type ReportSlot =
  /** A line right after vLLM's summary block, before our extras. */
  | 'after-summary'
  /** A section of the extras, after the intended-send and gateway sections. */
  | 'section'
  /** A closing line, after the records file's. */
  | 'closing';

/** What a report line may read beside the feature's part. */
export interface ReportContext {
  readonly records: readonly RequestRecord[];
  /** Requests the run planned to send. */
  readonly planned: number;
  /** vLLM's total_output_tokens of the run (per-token figures divide by it). */
  readonly outputTokens: number;
}

/** The places on the run's HTML page where features' sections go: before or after the run's own charts. */
export type PageSlot = 'before-charts' | 'after-charts';

/** What a page section may read beside the feature's part, from the saved result. */
export interface PageContext {
  /** The records the run's figures were computed on; null when the file has none (saved without detail). */
  readonly records: readonly RequestRecord[] | null;
  /** vLLM's total_output_tokens of the run (per-token figures divide by it). */
  readonly outputTokens: number;
}

/** A section of the run's HTML page: its heading, and its body as HTML. */
export interface PageSection {
  readonly heading: string;
  readonly body: string;
}

export interface RunFeature<Settings, Part, Live = Part, RunSettings = unknown> {
  /** Short, and unique among the features. */
  readonly name: string;
  /** Its settings out of the run's; undefined when the run does not use it. A property rather than a method, so
   *  that a run's settings lacking a field the feature names (or typing it otherwise) do not compile. */
  readonly settingsOf: (run: RunSettings) => Settings | undefined;
  prepare?(requests: PreparedRequest[], settings: Settings, seed: number): PreparedRequest[];
  start?(settings: Settings, context: FeatureRunContext): Promise<FeatureRun<Live>>;
  /** The feature's part of a run's figures (pure); undefined when it has nothing to say. */
  aggregate(
    settings: Settings | undefined,
    records: FeatureRecords,
    seen: Live | undefined,
  ): Part | undefined;
  /** The shards' parts as one run's (the Live a merged run's aggregate is given). */
  merge?(parts: readonly Part[]): Live | undefined;
  readonly json?: {
    /** Its keys under "tokenmeter"; `detailed` with --save-detailed (per-request arrays). */
    write(part: Part, detailed: boolean): Record<string, JsonValue>;
    /** Its part from a saved result JSON (the whole object); undefined when the file has none. Without it, a
     *  merge or a report of saved files knows nothing of the feature. */
    read?(result: JsonValueObject): Part | undefined;
  };
  readonly report?: {
    readonly slot: ReportSlot;
    lines(part: Part, context: ReportContext): string[];
  };
  readonly html?: {
    readonly slot: PageSlot;
    /** Its section; undefined when it has nothing to show. */
    section(part: Part, context: PageContext): PageSection | undefined;
  };
  /** Its share of vLLM's summary block and top-level keys, which vLLM places itself. */
  vllm?(part: Part): VllmRunSections;
  /** When this feature stopped the run because its answer was known: why, in words (a sweep level so stopped fell
   *  behind; bench exits with its own status). */
  stopReason?(part: Part): string | undefined;
}

/** A feature of unknown types, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds features of every settings and part type.
export type AnyRunFeature = RunFeature<any, any, any, any>;

/** The parts of one run's features, keyed by feature. */
export type FeatureParts = ReadonlyMap<AnyRunFeature, unknown>;

/** One feature's part of a run, typed. */
export function partOf<Part>(
  parts: FeatureParts,
  // biome-ignore lint/suspicious/noExplicitAny: any settings, live and run settings types.
  feature: RunFeature<any, Part, any, any>,
): Part | undefined {
  return parts.get(feature) as Part | undefined;
}

/** A list of listeners, so that one feature's readings reach another's without either naming the other. */
export class SampleChannel<Sample> {
  readonly #listeners: Array<(sample: Sample) => void> = [];

  listen(listener: (sample: Sample) => void): void {
    this.#listeners.push(listener);
  }

  publish(sample: Sample): void {
    for (const listener of this.#listeners) listener(sample);
  }
}
