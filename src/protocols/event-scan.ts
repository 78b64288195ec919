// Classifying the common event without JSON.parse: one anchored regular expression per protocol matches the whole
// of an event of the hot shape (a content delta, an OpenAI role-only first delta too) and captures its generated
// text; every other event (the finish, usage, errors, lifecycle events, pings) is JSON.parsed as before.
//
// Why it is exact. A pattern matches only text that is valid JSON (strings, numbers and literals by JSON's own
// grammar, whitespace where JSON allows it) and whose every member is either one the classifier never reads, with a
// scalar value, or one of the members the pattern names, once, with the value it names. A key with an escape in it
// (which could spell a read member's name) never matches, nor does a read member twice (JSON.parse keeps the
// last). So an event that matches has, under JSON.parse, exactly the fields the pattern saw, and the classifier
// reading them would return the facts the scan returns. Anything the pattern is not sure of falls through to
// JSON.parse. test/protocols/event-scan.test.ts checks both paths agree on a corpus of real-shape events and on
// seeded random ones.
//
// Why it is cheaper: the regular expression engine compiles the pattern to native code that walks the text once
// and builds nothing but the captured text, where JSON.parse builds every string and object of the event
// (bench/event-scan.ts measures the two side by side).

import type { EventClassifier, EventFacts } from '../measure/answer-facts.js';
import type { SseEvent } from '../sse/sse-parser.js';

/** JSON whitespace. */
const WS = '[ \\t\\n\\r]*';
/** A JSON string literal, escapes included, by JSON's grammar (no raw control characters). */
export const JSON_STRING = '"(?:[^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"';
const JSON_NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
/** A value a pattern passes over without reading it: a scalar, or an empty array or object. */
const SCALAR = `(?:${JSON_STRING}|${JSON_NUMBER}|true|false|null|\\[${WS}\\]|\\{${WS}\\})`;
/** The characters of a JSON string that needs no escape. */
const PLAIN_CHARS = '[^"\\\\\\x00-\\x1f]*';

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `"value"` exactly, written without escapes. */
export function literal(value: string): string {
  return literalAnyOf([value]);
}

/** One of `values` as a string, written without escapes. */
export function literalAnyOf(values: Iterable<string>): string {
  return `"(?:${[...values].map(escaped).join('|')})"`;
}

/** A string written without escapes whose value is none of `values`. */
export function stringOtherThan(values: readonly string[]): string {
  return `"(?!(?:${values.map(escaped).join('|')})")${PLAIN_CHARS}"`;
}

/** `"name":`, the start of the member of that name, its key written without escapes. */
export function named(name: string): string {
  return namedAnyOf([name]);
}

/** The start of a member whose key is one of `names`, written without escapes. */
export function namedAnyOf(names: readonly string[]): string {
  return `${literalAnyOf(names)}${WS}:${WS}`;
}

/**
 * A member the classifier does not read: any key written without escapes other than those in `read` (the members
 * the classifier reads at this level), with a scalar value.
 */
export function ignoredMember(read: readonly string[]): string {
  return `${stringOtherThan(read)}${WS}:${WS}${SCALAR}`;
}

/** The comma between two members. */
export const COMMA = `${WS},${WS}`;

/** Any number of `member`s, each followed by a comma (the members before a named one). */
export function membersBefore(member: string): string {
  return `(?:${member}${COMMA})*`;
}

/** Any number of `member`s, each after a comma (the members after a named one). */
export function membersAfter(member: string): string {
  return `(?:${COMMA}${member})*`;
}

/** A JSON object whose members are `members`. */
export function object(members: string): string {
  return `\\{${WS}${members}${WS}\\}`;
}

/** A JSON array of exactly one element, `element`. */
export function arrayOfOne(element: string): string {
  return `\\[${WS}${element}${WS}\\]`;
}

/** The whole text is `value` (with JSON whitespace around it). */
export function whole(value: string): RegExp {
  return new RegExp(`^${WS}${value}${WS}$`);
}

/**
 * Events longer than this are always JSON.parsed: the scan is for the many small deltas of a stream, and a bound
 * keeps a pattern's backtracking on a long event that does not match out of the question.
 */
export const MAX_SCANNED_CHARS = 16 * 1024;

/** The value of a JSON string literal matched by JSON_STRING. */
export function stringValue(text: string): string {
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
}

/** The facts of a content event whose generated text is `text` (none when it is empty); `reasoning` when that
 *  text is the model's reasoning rather than its answer. */
export function contentFacts(text: string, reasoning = false): EventFacts {
  if (text === '') return EMPTY_CONTENT;
  return reasoning ? { contentText: text, reasoning: true } : { contentText: text };
}

const EMPTY_CONTENT: EventFacts = Object.freeze({});

/**
 * Reads an event without JSON.parse when it is sure of its facts; undefined when it is not (the event is then
 * JSON.parsed). Must never return facts that differ from what the JSON.parse path returns for the same event.
 */
export type EventScan = (event: SseEvent) => EventFacts | undefined;

/** `parsing`, with `scan` tried first on every event small enough. */
export function withScan(parsing: EventClassifier, scan: EventScan): EventClassifier {
  return {
    protocol: parsing.protocol,
    classify(event: SseEvent): EventFacts {
      if (event.data.length <= MAX_SCANNED_CHARS) {
        const facts = scan(event);
        if (facts !== undefined) return facts;
      }
      return parsing.classify(event);
    },
  };
}
