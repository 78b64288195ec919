// The KV cache as vLLM's V1 block manager keeps it, reduced to counts: a fixed pool of 16-token blocks; a running
// sequence holds ceil(tokens / 16) of them; with prefix caching, each full block (prompt or generated) is also
// registered under its prefix hash, shared by every sequence whose context starts the same way, and kept after its
// last holder lets go, until a fresh block is needed and the least recently freed cached block is evicted. The prefix cache
// therefore shares the pool's capacity: cached blocks nobody holds count as free. Every operation costs the
// blocks it changes, never a scan of the sequences.
import { BLOCK_SIZE, blocksFor } from './prompt-blocks.js';

interface CachedBlock {
  readonly hash: string;
  /** Running sequences holding it; 0 = evictable. */
  refs: number;
}

/** The blocks one running sequence holds. */
export interface KvHold {
  /** Blocks registered in the prefix cache, in sequence order (shared with other sequences). */
  readonly shared: CachedBlock[];
  /** Blocks of its own (the partial last block, a block whose hash another holds, or all without prefix caching). */
  own: number;
  /** Leading block positions already looked up or registered (the next full block to register is this one). */
  considered: number;
  /** Prompt tokens found in the cache when it was admitted (a multiple of 16). */
  readonly cachedTokens: number;
}

export class KvCache {
  private used = 0;
  private peak = 0;
  private readonly byHash = new Map<string, CachedBlock>();
  /** Cached blocks no sequence holds, least recently freed first (a Map keeps insertion order). */
  private readonly evictable = new Map<string, CachedBlock>();

  constructor(
    readonly capacityBlocks: number,
    readonly prefixCaching: boolean,
  ) {}

  /** Blocks held by running sequences (a shared block counts once). */
  get usedBlocks(): number {
    return this.used;
  }

  get peakUsedBlocks(): number {
    return this.peak;
  }

  /** Cached blocks nobody holds: reusable by a matching prompt, evicted first when the pool runs out. */
  get evictableBlocks(): number {
    return this.evictable.size;
  }

  /** vLLM's kv_cache_usage: 1 means every block is held by a running sequence. */
  get usage(): number {
    return this.used / this.capacityBlocks;
  }

  /**
   * Blocks for a sequence of `tokens` tokens whose full blocks hash to `blockHashes`, or undefined when they do not
   * fit. Like vLLM, the last token is always computed, so a context cached to its very end reuses one block less.
   */
  admit(blockHashes: readonly string[], tokens: number): KvHold | undefined {
    const needed = blocksFor(tokens);
    const hits = this.prefixCaching
      ? this.leadingHits(blockHashes, Math.floor((tokens - 1) / BLOCK_SIZE))
      : [];
    const revived = hits.reduce((n, block) => n + (block.refs === 0 ? 1 : 0), 0);
    const fresh = needed - hits.length;
    if (fresh > this.capacityBlocks - this.used - revived) return undefined;
    for (const block of hits) this.hold(block);
    this.allocate(fresh);
    const hold: KvHold = {
      shared: hits,
      own: fresh,
      considered: hits.length,
      cachedTokens: hits.length * BLOCK_SIZE,
    };
    // The context's other full blocks become cached as soon as they are allocated, as in vLLM V1, so a request
    // arriving during this one's prefill already shares them.
    this.cacheFullBlocks(hold, blockHashes);
    return hold;
  }

  /** Registers the holder's full blocks not registered yet (`blockHashes` grows as the sequence generates). */
  cacheFullBlocks(hold: KvHold, blockHashes: readonly string[]): void {
    if (!this.prefixCaching) return;
    const held = hold.shared.length + hold.own;
    for (; hold.considered < blockHashes.length && hold.considered < held; hold.considered++) {
      const hash = blockHashes[hold.considered] as string;
      if (this.byHash.has(hash)) continue; // another sequence cached the same content first: this copy stays own
      const block: CachedBlock = { hash, refs: 1 };
      this.byHash.set(hash, block);
      hold.shared.push(block);
      hold.own--;
    }
  }

  /** Grows `hold` to cover `tokens` tokens; false (and nothing taken) when the pool has too few free blocks. */
  grow(hold: KvHold, tokens: number): boolean {
    const missing = blocksFor(tokens) - hold.shared.length - hold.own;
    if (missing <= 0) return true;
    if (missing > this.capacityBlocks - this.used) return false;
    this.allocate(missing);
    hold.own += missing;
    return true;
  }

  /** Gives back every block of `hold`; its cached blocks stay in the prefix cache until evicted. */
  release(hold: KvHold): void {
    // Last block first, as vLLM frees them: a prompt's tail is evicted before its head, which more prompts share.
    for (let i = hold.shared.length - 1; i >= 0; i--) {
      const block = hold.shared[i] as CachedBlock;
      if (--block.refs === 0) {
        this.evictable.set(block.hash, block);
        this.used--;
      }
    }
    this.used -= hold.own;
    hold.shared.length = 0;
    hold.own = 0;
    hold.considered = 0;
  }

  private leadingHits(hashes: readonly string[], limit: number): CachedBlock[] {
    const hits: CachedBlock[] = [];
    for (let i = 0; i < hashes.length && i < limit; i++) {
      const block = this.byHash.get(hashes[i] as string);
      if (block === undefined) break;
      hits.push(block);
    }
    return hits;
  }

  private hold(block: CachedBlock): void {
    if (block.refs++ === 0) {
      this.evictable.delete(block.hash);
      this.count(1);
    }
  }

  /** Takes `n` blocks: never-used ones first, then by evicting the least recently freed cached blocks. */
  private allocate(n: number): void {
    for (let i = 0; i < n; i++) {
      if (this.capacityBlocks - this.used - this.evictable.size <= 0) {
        const oldest = this.evictable.values().next().value as CachedBlock;
        this.evictable.delete(oldest.hash);
        this.byHash.delete(oldest.hash);
      }
      this.count(1);
    }
  }

  private count(n: number): void {
    this.used += n;
    if (this.used > this.capacityBlocks) {
      throw new Error(`KV cache over capacity: ${this.used} > ${this.capacityBlocks} blocks`);
    }
    if (this.used > this.peak) this.peak = this.used;
  }
}
