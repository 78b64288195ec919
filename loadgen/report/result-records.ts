// Per-request records rebuilt from a result file saved with --save-detailed, so the HTML report draws from a
// saved file exactly what the live run would have shown, through the same metrics and verdict code.
// vLLM's own detailed files have the arrays but not our `tokenmeter` ones: outcome then comes from `errors`
// (empty = success, as vLLM writes it) and missing figures stay null. vLLM's start_times are absolute
// perf_counter readings; ours are offsets from the run's start; both are shifted to start at 0.
// vLLM 0.8.5's detailed files have only input_lens, output_lens, ttfts, itls, generated_texts and errors: the
// E2E latency is then TTFT + the sum of the gaps (vLLM's own latency is the last token-bearing chunk, which
// is that sum, as its --plot-timeline computes it), and with no start_times the send times stay unknown
// (null), so nothing that needs them (rates over time, peaks) can be drawn from such records.

import { type ClientOutcome, clientOutcomeNamed } from '../../src/measure/outcome.js';
import type { JsonValue, JsonValueObject } from '../../src/shared/json-object.js';
import type { RequestRecord } from '../record.js';
import { tokenmeterSection } from './result-fields.js';

const REQUIRED_ARRAYS = ['ttfts', 'itls', 'output_lens'] as const;

function arrayOf(json: JsonValueObject, key: string): readonly JsonValue[] | null {
  const value = json[key];
  return Array.isArray(value) ? value : null;
}

function num(value: JsonValue | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The saved outcome (0.1's words read as their new names), else from vLLM's `errors`. */
function outcomeOf(saved: JsonValue | undefined, error: JsonValue | undefined): ClientOutcome {
  const named = clientOutcomeNamed(saved);
  if (named !== undefined) return named;
  return typeof error === 'string' && error !== '' ? 'http_error' : 'ok';
}

/** True when the file carries the per-request arrays the distribution charts need. */
export function hasDetailedArrays(json: JsonValueObject): boolean {
  const lengths = REQUIRED_ARRAYS.map((key) => arrayOf(json, key)?.length ?? -1);
  return lengths.every((n) => n >= 0 && n === lengths[0]);
}

/** What a file's detailed arrays lack, for the line that says which figures could be tested. */
export function missingDetail(json: JsonValueObject): string[] {
  const missing: string[] = [];
  if (arrayOf(json, 'latencies') === null) missing.push('no latencies (E2EL = TTFT + the gaps)');
  if (arrayOf(json, 'start_times') === null) missing.push('no start_times (throughputs untested)');
  return missing;
}

/** The run's records, or null when the file was saved without --save-detailed. */
export function recordsFromResult(json: JsonValueObject): RequestRecord[] | null {
  if (!hasDetailedArrays(json)) return null;
  const ours = tokenmeterSection(json);
  const col = (key: string): readonly JsonValue[] => arrayOf(json, key) ?? arrayOf(ours, key) ?? [];
  const [ttfts, itls, outputs] = REQUIRED_ARRAYS.map(col) as [
    readonly JsonValue[],
    readonly JsonValue[],
    readonly JsonValue[],
  ];
  const latencies = col('latencies');
  const starts = col('start_times');
  const hasStarts = starts.length === ttfts.length;
  const inputs = col('input_lens');
  const errors = col('errors');
  const texts = col('generated_texts');
  const outcomes = col('outcomes');
  const intended = col('intended_offsets_ms');
  const queues = col('client_queue_ms');
  const ttfbs = col('ttfbs_ms');
  const chunks = col('chunk_counts');
  const statuses = col('statuses');
  const sources = col('output_token_sources');
  const firstStart = Math.min(...starts.map((s) => num(s) ?? Number.POSITIVE_INFINITY));
  const origin = intended.length > 0 || !Number.isFinite(firstStart) ? 0 : firstStart;

  return ttfts.map((_, i): RequestRecord => {
    const outcome = outcomeOf(outcomes[i], errors[i]);
    const ok = outcome === 'ok';
    const gaps = itls[i];
    const itlMs = Array.isArray(gaps) ? gaps.map((g) => (num(g) ?? 0) * 1000) : [];
    const sentAtMs = hasStarts ? ((num(starts[i]) ?? origin) - origin) * 1000 : null;
    const ttftMs = (num(ttfts[i]) ?? 0) * 1000;
    const lastTokenMs =
      num(latencies[i]) === null
        ? ttftMs + itlMs.reduce((a, b) => a + b, 0)
        : (num(latencies[i]) as number) * 1000;
    const error = errors[i];
    const text = texts[i];
    return {
      index: i,
      intendedOffsetMs: num(intended[i]) ?? sentAtMs ?? 0,
      sentAtMs,
      clientQueueMs: num(queues[i]) ?? 0,
      ttfbMs: num(ttfbs[i]),
      ttftMs: ok ? ttftMs : null,
      itlMs: ok ? itlMs : [],
      lastTokenMs: ok ? lastTokenMs : null,
      outputTokens: num(outputs[i]) ?? 0,
      outputTokensSource: sources[i] === 'tokenizer' ? 'tokenizer' : 'usage',
      promptTokens: num(inputs[i]) ?? 0,
      contentChunks: num(chunks[i]) ?? (ok ? itlMs.length + 1 : 0),
      outcome,
      status: num(statuses[i]),
      error: typeof error === 'string' && error !== '' ? error : null,
      errorBodyExcerpt: null,
      generatedTextLength: typeof text === 'string' ? text.length : 0,
    };
  });
}
