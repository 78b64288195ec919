// A sequence as the KV cache sees it: its token count under the built-in rule and the hash of every full 16-token
// block, each hash covering the whole prefix up to and including its block (as vLLM's block hashes chain the
// parent's hash). Equal prefixes therefore give equal leading hashes, which is what the prefix cache keys on. The
// prompt is hashed once, when its body is read; with prefix caching on, the chain then continues over the
// generated tokens (one hash per 16 tokens), so the next turn of a conversation, whose prompt repeats this
// prompt and this answer, finds both cached, as in vLLM.
import { createHash, type Hash } from 'node:crypto';
import { forEachEstimatedToken } from '../shared/token-estimate.js';

/** Tokens per KV block, vLLM's default --block-size on CUDA. */
export const BLOCK_SIZE = 16;

/** A chat template's own tokens have no text; they hash as this marker so they cannot equal a word. */
const TEMPLATE_TOKEN = '\u0000t';
/** What one image counts in a prompt, whatever its size or detail (docs/simulator.md, "Tools, images, reasoning"). */
export const IMAGE_TOKENS = 256;
/** Separates pieces inside a block, so "ab"+"c" and "a"+"bc" hash differently. */
const SEPARATOR = '\u0001';

export class PromptBlockHasher {
  private readonly chain: Hash = createHash('sha256');
  private readonly hashes: string[] = [];
  private block = '';
  private inBlock = 0;
  private count = 0;

  /** Tokens so far. */
  get tokens(): number {
    return this.count;
  }

  /** One hash per full block so far, in order; a trailing partial block has none (vLLM caches full blocks only). */
  get blockHashes(): readonly string[] {
    return this.hashes;
  }

  /** Adds the tokens of `text` under the built-in rule. */
  text(text: string): this {
    forEachEstimatedToken(text, (piece) => this.piece(piece));
    return this;
  }

  /**
   * Adds one generated token: the simulator's tokens are one word (with its leading space) or one mark each, so
   * the piece the rule would find in it is the token without its space, and no pattern needs to run.
   */
  generated(token: string): this {
    this.piece(token.trimStart());
    return this;
  }

  /** Adds `n` chat-template tokens (role markers and the like). */
  template(n: number): this {
    for (let i = 0; i < n; i++) this.piece(TEMPLATE_TOKEN);
    return this;
  }

  /**
   * Adds one image: IMAGE_TOKENS tokens that hash as its source's digest (`imageMarker`), so the same image in the
   * same place gives the same blocks.
   */
  image(marker: string): this {
    for (let i = 0; i < IMAGE_TOKENS; i++) this.piece(marker);
    return this;
  }

  private piece(piece: string): void {
    this.block += piece + SEPARATOR;
    this.count++;
    if (++this.inBlock < BLOCK_SIZE) return;
    // The running hash already holds every earlier block: a copy's digest is the hash of the whole prefix.
    this.chain.update(this.block);
    this.hashes.push(this.chain.copy().digest('base64url'));
    this.block = '';
    this.inBlock = 0;
  }
}

/** The text that stands for an image (its URL, data or file id) in block hashes and in the prompt's text. */
export function imageMarker(source: string): string {
  return `\u0000image:${createHash('sha256').update(source).digest('base64url').slice(0, 22)}`;
}

export function blocksFor(tokens: number): number {
  return Math.ceil(tokens / BLOCK_SIZE);
}
