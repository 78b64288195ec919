// Pieces of the load generator's request bodies that several protocols share.
import type { Body, ChatContentFormat } from './protocol.js';

/** A user message's content in the protocol's own part type ('text' for chat and Anthropic). */
export function userContent(prompt: string, format: ChatContentFormat, partType: string): unknown {
  return format === 'parts' ? [{ type: partType, text: prompt }] : prompt;
}

/** A plain stream: the protocol always sends usage and has no ignore_eos. */
export function streamOnly(): Body {
  return { stream: true };
}
