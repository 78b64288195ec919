// A run cut short by Ctrl-C (src/cli/signals.ts): when, and what it cancelled. The requests it cancelled
// (in flight, recorded `client_abort`; or never sent, with no record) are the operator's doing, not failures of
// the server: the run's figures leave them out, and the result JSON (`tokenmeter.interrupted`), the report, and
// compare and merge when they read such a result, say the run was cut short.
import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import { cancelledAsPlanned, type RequestRecord } from '../record.js';
import { tokenmeterSection } from './result-fields.js';

export interface Interruption {
  /** When the first Ctrl-C came. */
  readonly at: Date;
  /** Requests in flight then, cancelled (each has its `client_abort` record). */
  readonly cancelledInFlight: number;
  /** Requests of the plan never sent (no record). */
  readonly notSent: number;
}

/**
 * The records a run's figures are computed on: all but those cancelled as --request-cancellation-rate planned,
 * and, for a run cut short, those its interruption cancelled.
 */
export function measuredRecords(
  records: readonly RequestRecord[],
  interruption: Interruption | undefined,
): RequestRecord[] {
  return records.filter(
    (r) => !cancelledAsPlanned(r) && (interruption === undefined || r.outcome !== 'client_abort'),
  );
}

export function interruptionOf(
  at: Date | null,
  records: readonly RequestRecord[],
  planned: number,
): Interruption | undefined {
  if (at === null) return undefined;
  return {
    at,
    cancelledInFlight: records.filter((r) => r.outcome === 'client_abort').length,
    notSent: Math.max(0, planned - records.length),
  };
}

/** `tokenmeter.interrupted` in the result JSON. */
export function interruptionKeys(interruption: Interruption | undefined): Record<string, JsonValue> {
  if (interruption === undefined) return {};
  return {
    interrupted: {
      at: interruption.at.toISOString(),
      cancelled: interruption.cancelledInFlight + interruption.notSent,
      cancelled_in_flight: interruption.cancelledInFlight,
      not_sent: interruption.notSent,
    },
  };
}

/** The report's line for a run cut short. */
export function interruptionLine(interruption: Interruption, planned: number): string {
  const ran = planned - interruption.notSent - interruption.cancelledInFlight;
  return (
    `Interrupted (cut short at ${interruption.at.toISOString()}): ${ran} of ${planned} requests ran to their end; ` +
    `${interruption.cancelledInFlight} in flight were cancelled and ${interruption.notSent} never sent, none counted as failed. ` +
    'The figures above describe only the part that ran.\n'
  );
}

/** A saved result's interruption in words, for compare and merge; null for a run that was not cut short. */
export function interruptionNote(json: JsonValueObject): string | null {
  const mark = tokenmeterSection(json)['interrupted'];
  if (!isJsonObject(mark)) return null;
  const at = typeof mark['at'] === 'string' ? mark['at'] : 'an unknown time';
  const cancelled = typeof mark['cancelled'] === 'number' ? mark['cancelled'] : '?';
  return `interrupted at ${at}, ${cancelled} of its requests cancelled: it describes only the part that ran`;
}
