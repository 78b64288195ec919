// Readable, deterministic answers. Each token is one word (with its leading space) or one punctuation mark, so
// the built-in token rule (src/shared/token-estimate.ts) counts the simulator's output exactly.
import type { SeededRandom } from '../shared/random.js';
import { splitEstimatedTokens } from '../shared/token-estimate.js';
import type { FinishReason, PlannedToolCall } from './protocols/protocol.js';

const WORDS = (
  'the model serves tokens for every request while the gateway measures time to first token and the gap ' +
  'between tokens under load when many users send prompts at once the queue grows and latency climbs so we ' +
  'watch throughput success rate and tail latency before launch a benchmark replays real conversations ' +
  'through the endpoint with a steady arrival rate then reports mean median and percentile figures that ' +
  'teams compare across deployments hardware batch size cache memory scheduler prefill decode stream ' +
  'answer question code example function value result system user assistant context window budget simple ' +
  'careful clear fast slow stable useful honest small large early late first last next other same each ' +
  'we you they it can will should might often rarely always never also only still just more less very'
).split(' ');

const PUNCTUATION_EVERY = 9;

/** One word of the answers' vocabulary, lower case, no space (tool arguments' strings are made of these). */
export function vocabularyWord(random: SeededRandom): string {
  return WORDS[random.int(0, WORDS.length - 1)] as string;
}

export interface PlannedAnswer {
  /**
   * The tokens in emission order, the reasoning part first; joined they form the reasoning and answer texts. In a
   * tool call's answer, the tokens after the reasoning are the tool's name (one token) and then its arguments, in
   * the pieces the built-in rule counts.
   */
  readonly tokens: readonly string[];
  /** How many of `tokens` are reasoning (0 unless a reasoning model). */
  readonly reasoningTokens: number;
  readonly finishReason: FinishReason;
  /** The answer is this tool call (finish `tool_calls`); its name is `tokens[reasoningTokens]`. */
  readonly toolCall: PlannedToolCall | undefined;
}

/** The natural length of an answer: log-normal around the median, so a few answers run long. */
export function naturalLength(random: SeededRandom, medianTokens: number): number {
  return Math.max(1, Math.round(medianTokens * Math.exp(0.5 * random.normal())));
}

/** Sentences of vocabulary words: a capital after each full stop, punctuation every few words. */
class Sentences {
  private capitalize = true;
  private index = 0;

  constructor(private readonly random: SeededRandom) {}

  next(): string {
    const i = this.index++;
    if (i > 0 && i % PUNCTUATION_EVERY === PUNCTUATION_EVERY - 1) {
      const mark = this.random.next() < 0.7 ? '.' : ',';
      this.capitalize = mark === '.';
      return mark;
    }
    const word = vocabularyWord(this.random);
    const cased = this.capitalize ? word.charAt(0).toUpperCase() + word.slice(1) : word;
    this.capitalize = false;
    return i === 0 ? cased : ` ${cased}`;
  }
}

/**
 * Plans the whole answer up front (so stop strings and lengths are known before the first byte): first
 * `reasoningTokens` of reasoning (they count toward `maxTokens`, as a reasoning model's do), then the answer,
 * which stops at its natural end unless `ignoreEos`, at what is left of `maxTokens` (finish `length`), or before
 * the first stop string (`stop`; stop strings apply to the answer only).
 */
export function planAnswer(
  random: SeededRandom,
  maxTokens: number,
  eosAfter: number,
  ignoreEos: boolean,
  stop: readonly string[],
  reasoningTokens = 0,
  toolCall?: PlannedToolCall,
): PlannedAnswer {
  const reasoning = Math.min(reasoningTokens, maxTokens);
  const tokens: string[] = [];
  const thoughts = new Sentences(random);
  for (let i = 0; i < reasoning; i++) tokens.push(thoughts.next());
  const budget = maxTokens - reasoning;
  // A tool call is made whole or not at all: one that does not fit what is left of max_tokens becomes text.
  const callTokens =
    toolCall === undefined ? [] : [toolCall.name, ...splitEstimatedTokens(toolCall.arguments)];
  if (toolCall !== undefined && callTokens.length <= budget) {
    tokens.push(...callTokens);
    return { tokens, reasoningTokens: reasoning, finishReason: 'tool_calls', toolCall };
  }
  const limit = ignoreEos ? budget : Math.min(budget, eosAfter);
  const words = new Sentences(random);
  const answer: string[] = [];
  let text = '';
  for (let i = 0; i < limit; i++) {
    const token = words.next();
    const candidate = text + token;
    const stopAt = firstStopIndex(candidate, stop);
    if (stopAt >= 0) {
      tokens.push(...trimToStop(answer, text, stopAt));
      return { tokens, reasoningTokens: reasoning, finishReason: 'stop', toolCall: undefined };
    }
    answer.push(token);
    text = candidate;
  }
  tokens.push(...answer);
  const finishReason = answer.length < budget ? 'stop' : 'length';
  return { tokens, reasoningTokens: reasoning, finishReason, toolCall: undefined };
}

function firstStopIndex(text: string, stop: readonly string[]): number {
  let best = -1;
  for (const s of stop) {
    if (s === '') continue;
    const at = text.indexOf(s);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/** Keeps the tokens that lie wholly before the stop string (the stop string itself is never sent). */
function trimToStop(tokens: string[], text: string, stopAt: number): string[] {
  let length = text.length;
  while (tokens.length > 0 && length > stopAt) {
    length -= (tokens.pop() as string).length;
  }
  return tokens;
}
