// The shape of every protocol's usage reader. Each protocol reads its `usage` object in one function (in its
// folder), and both its stream classifier and its non-streamed answer reader call that function, so a streamed
// answer and the same answer sent whole are counted alike. Every usage object first passes the plausibility gate
// (src/measure/reported-usage.ts); one holding a count no answer can have is not read at all.
//
// Reasoning tokens are counted as output, and reported beside it: every API that reports them (OpenAI chat and
// completions' `completion_tokens_details.reasoning_tokens`, Responses' `output_tokens_details.reasoning_tokens`)
// includes them in its output count, they took decode time and are billed as output, so outputTokens keeps them and
// reasoningTokens says how many of them were reasoning. Anthropic reports thinking inside `output_tokens` only.

import type { MutableFacts } from '../measure/answer-facts.js';
import { plausibleUsage } from '../measure/reported-usage.js';
import { countField, field, isJsonObject, type JsonObject } from '../shared/json-object.js';

/** What one usage object says, each count absent when the upstream did not report it. */
export interface UsageCounts {
  /** Every prompt token the upstream processed, those read from its prompt cache included. */
  readonly promptTokens?: number | undefined;
  /** Of promptTokens, those read from the prompt cache (priced lower by hosted APIs). */
  readonly cachedPromptTokens?: number | undefined;
  /** Every generated token, reasoning included. */
  readonly outputTokens?: number | undefined;
  /** Of outputTokens, those the upstream reports as reasoning. */
  readonly reasoningTokens?: number | undefined;
}

/** A usage object read: its counts, or why none of them was read. */
export type ReportedUsage = { readonly counts: UsageCounts } | { readonly implausible: string };

/** Reads an answer's or an event's `usage` member; undefined when there is no usage object. */
export type UsageReader = (usage: unknown) => ReportedUsage | undefined;

/** A protocol's usage reader: the plausibility gate, then `countsOf` on a usage every count of which is plausible. */
export function usageReader(countsOf: (usage: JsonObject) => UsageCounts): UsageReader {
  return (usage) => {
    const reported = plausibleUsage(usage);
    if (reported === undefined) return undefined;
    return 'implausible' in reported ? reported : { counts: countsOf(reported.usage) };
  };
}

/** `usage.<detailsKey>.<countKey>`, where usages nest their details (`prompt_tokens_details.cached_tokens`). */
export function detailCount(usage: JsonObject, detailsKey: string, countKey: string): number | undefined {
  const details = field(usage, detailsKey);
  return isJsonObject(details) ? countField(details, countKey) : undefined;
}

/**
 * Adds to `facts` (a stream event's) what its usage says: its counts, or why they were not read. `withOutput: false`
 * takes the prompt side only (Anthropic's message_start counts output before anything was generated).
 */
export function addUsageFacts(facts: MutableFacts, reported: ReportedUsage, withOutput = true): MutableFacts {
  if ('implausible' in reported) {
    facts.implausibleUsage = reported.implausible;
    return facts;
  }
  const { promptTokens, cachedPromptTokens, outputTokens, reasoningTokens } = reported.counts;
  if (promptTokens !== undefined) facts.promptTokens = promptTokens;
  if (cachedPromptTokens !== undefined) facts.cachedPromptTokens = cachedPromptTokens;
  if (withOutput && outputTokens !== undefined) facts.completionTokens = outputTokens;
  if (withOutput && reasoningTokens !== undefined) facts.reasoningTokens = reasoningTokens;
  return facts;
}
