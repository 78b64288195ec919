// How a request ended: one vocabulary for the gateway's records, the load generator's records and the
// `tokenmeter_requests_total{outcome}` label (whose values the dashboards and alert rules use).

export type Outcome =
  /** 2xx and the answer completed (a streamed one with content and a finish reason or its end marker). */
  | 'ok'
  /** The upstream answered outside 2xx. */
  | 'http_error'
  /** 2xx carrying an error instead of an answer (an error event in the stream, an error JSON body, no content). */
  | 'upstream_error_body'
  /** The answer ended before its end: no finish reason and no end marker, or the connection broke mid-answer. */
  | 'truncated'
  /** No connection (refused, reset before an answer, DNS, TLS). */
  | 'upstream_unreachable'
  /** A deadline passed: connect, headers, idle mid-stream or total. */
  | 'upstream_timeout'
  /** The client left (or the run was stopped) before the answer completed. */
  | 'client_abort'
  /** Refused by the gateway itself (key, path, model, size, shutting down); never seen by a client of its own. */
  | 'rejected';

export const OUTCOMES: readonly Outcome[] = Object.freeze([
  'ok',
  'http_error',
  'upstream_error_body',
  'truncated',
  'upstream_unreachable',
  'upstream_timeout',
  'client_abort',
  'rejected',
]);

/**
 * The load generator's own outcome for a request it cancelled on purpose, as planned by
 * --request-cancellation-rate (loadgen/cancellation/). Never the gateway's: the gateway and the server see a client
 * that left (client_abort), so it is not in OUTCOMES, the values of the gateway's outcome label.
 */
export const PLANNED_CANCEL = 'cancelled';

/** How a load generator's request ended: the shared vocabulary, or cancelled as planned. */
export type ClientOutcome = Outcome | typeof PLANNED_CANCEL;

/** The load generator's outcome words before 0.2, by the word that replaced each. */
const RENAMED_OUTCOMES: Readonly<Record<string, Outcome>> = Object.freeze({
  timeout: 'upstream_timeout',
  connect_error: 'upstream_unreachable',
  aborted: 'client_abort',
});

/** The outcome a saved word names, reading 0.1's load generator words too; undefined for anything else. */
export function outcomeNamed(word: unknown): Outcome | undefined {
  if (typeof word !== 'string') return undefined;
  if ((OUTCOMES as readonly string[]).includes(word)) return word as Outcome;
  return RENAMED_OUTCOMES[word];
}

/** outcomeNamed, and the load generator's own `cancelled`. */
export function clientOutcomeNamed(word: unknown): ClientOutcome | undefined {
  return word === PLANNED_CANCEL ? PLANNED_CANCEL : outcomeNamed(word);
}
