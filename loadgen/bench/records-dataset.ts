// Replays the gateway's own request records (`tokenmeter serve --records FILE`): real traffic becomes a
// repeatable benchmark, at the recorded pace (or scaled with --replay-speed).
//
// What the records hold, and so what can be replayed: the arrival time, the endpoint, the model, the prompt and
// completion token counts and, when the gateway ran with --record-bodies, the client's request body. A recorded
// body (not truncated, sent to the endpoint this run targets) is re-sent as it was, with streaming on so its
// tokens can be timed; without one, the request is re-created as synthetic text of the recorded prompt length
// asking for the recorded completion length. Requests without token counts (failed before the upstream
// answered) are skipped and counted.

import type { RequestRecord as GatewayRecord } from '../../src/gateway/records/record.js';
import { readRecordsText } from '../../src/measure/record-files.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import { endpointFamily } from '../../src/protocols/backends.js';
import type { EndpointFamily } from '../../src/protocols/index.js';
import { isJsonObject } from '../../src/shared/json-object.js';
import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { fileErrorReason } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { SampledDataset, SampleRequest } from '../datasets/sample-request.js';
import { textOfTokens } from '../datasets/text-of-length.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';

export interface RecordsReplayOptions {
  readonly path: string;
  /** At most this many records, in recorded order. */
  readonly numPrompts: number;
  readonly seed: number;
  readonly tokenizer: Tokenizer;
  /** 2 = twice as fast as recorded. */
  readonly speed: number;
  /** Where this run sends requests: recorded bodies are replayed only for records of this endpoint family. */
  readonly endpointFamily?: EndpointFamily;
}

export interface RecordsReplay extends SampledDataset {
  /** Intended send times, ms after the first recorded request, divided by the speed. */
  readonly offsetsMs: number[];
}

type Replayable = Pick<
  GatewayRecord,
  | 'requestId'
  | 'startedAt'
  | 'receivedAtMonotonicMs'
  | 'promptTokens'
  | 'outputTokens'
  | 'pathAsked'
  | 'pathSent'
  | 'requestBody'
  | 'requestBodyTruncated'
>;

/** The record's body as an object to re-send, when it is complete and belongs to the endpoint being replayed. */
function replayableBody(
  record: Replayable,
  family: EndpointFamily | undefined,
): Record<string, unknown> | undefined {
  if (typeof record.requestBody !== 'string' || record.requestBodyTruncated === true) return undefined;
  const path = record.pathSent ?? record.pathAsked;
  if (family !== undefined && (typeof path !== 'string' || endpointFamily(path) !== family)) return undefined;
  try {
    const body: unknown = JSON.parse(record.requestBody);
    return isJsonObject(body) ? { ...body } : undefined;
  } catch {
    return undefined;
  }
}

function arrivalMs(record: Replayable): number {
  const wall = Date.parse(record.startedAt);
  return Number.isFinite(wall) ? wall : record.receivedAtMonotonicMs;
}

export async function sampleGatewayRecords(options: RecordsReplayOptions): Promise<RecordsReplay> {
  let text: string;
  try {
    text = readRecordsText(options.path);
  } catch (error) {
    throw new UserFacingError(`--dataset-path ${options.path}: ${fileErrorReason(error)}`, { cause: error });
  }
  const usable: Replayable[] = [];
  // Files written by 0.1 (completionTokens...) read alike: the reader gives today's names.
  const lines = parseRecordLines(text);
  let malformed = lines.malformed;
  let withoutTokens = 0;
  for (const line of lines.records) {
    const value = line as unknown as Replayable;
    if (typeof value.requestId !== 'string' || typeof value.startedAt !== 'string') malformed++;
    else if (
      !(
        typeof value.promptTokens === 'number' &&
        typeof value.outputTokens === 'number' &&
        value.outputTokens > 0
      )
    )
      withoutTokens++;
    else usable.push(value);
  }
  if (usable.length === 0) {
    throw new UserFacingError(
      `--dataset-path ${options.path}: no gateway record with prompt and completion token counts to replay ` +
        `(${malformed} malformed lines, ${withoutTokens} records without token counts)`,
    );
  }
  usable.sort((a, b) => arrivalMs(a) - arrivalMs(b));
  const chosen = usable.slice(0, options.numPrompts);
  const first = arrivalMs(chosen[0] as Replayable);
  const random = new SeededRandom(hashSeed('records-replay', options.seed));
  const requests: SampleRequest[] = [];
  const offsetsMs: number[] = [];
  let withBodies = 0;
  for (const record of chosen) {
    const body = replayableBody(record, options.endpointFamily);
    if (body === undefined) {
      const prompt = textOfTokens(options.tokenizer, Math.max(1, record.promptTokens ?? 1), random);
      requests.push({
        prompt,
        promptTokens: options.tokenizer.count(prompt, { addSpecialTokens: true }),
        outputTokens: record.outputTokens ?? 1,
        sourceId: record.requestId,
      });
    } else {
      withBodies++;
      requests.push({
        prompt: '',
        promptTokens: record.promptTokens ?? 0,
        outputTokens: record.outputTokens ?? 1,
        sourceId: record.requestId,
        recordedBody: body,
      });
    }
    offsetsMs.push((arrivalMs(record) - first) / options.speed);
  }
  const synthetic = chosen.length - withBodies;
  const notes = [
    `replaying ${chosen.length} gateway records at ${options.speed}x the recorded pace: ${withBodies} with the ` +
      `client's own request body, ${synthetic} as synthetic text of the recorded prompt length` +
      (synthetic > 0
        ? ' (no body recorded: run the gateway with --record-bodies, or body cut or for another endpoint)'
        : ''),
  ];
  if (malformed > 0 || withoutTokens > 0) {
    notes.push(`skipped ${malformed} malformed lines and ${withoutTokens} records without token counts`);
  }
  if (chosen.length < options.numPrompts)
    notes.push(`only ${chosen.length} records available (asked for ${options.numPrompts})`);
  return { requests, notes, offsetsMs };
}
