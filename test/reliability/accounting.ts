// The fault matrix's one rule, checked the same way in every row: every request a row sent has exactly one
// record, whatever the fault did to it. Rows assert what the client received and the record's outcome themselves.
import assert from 'node:assert/strict';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import type { TestGateway } from '../gateway/helpers/gateway.js';

/** Asserts one record per request sent; the message lists what was recorded, so a failing row shows what leaked. */
export function assertOneRecordPerRequest(records: readonly RequestRecord[], requestsSent: number): void {
  const seen = new Map<string, number>();
  for (const r of records) seen.set(r.requestId, (seen.get(r.requestId) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  assert.deepEqual(twice, [], `request ids recorded more than once: ${twice.join(', ')}`);
  const outcomes = records.map((r) => `${r.outcome}(${r.status})`).join(', ');
  assert.equal(records.length, requestsSent, `${requestsSent} requests sent, records: [${outcomes}]`);
}

/**
 * Closes an in-process gateway, which waits for every connection to finish and every record to reach its sinks,
 * then applies the rule. Closing first is what makes "no extra record" checkable without waiting and hoping.
 */
export async function closeAndAccount(gateway: TestGateway, requestsSent: number): Promise<RequestRecord[]> {
  await gateway.close();
  assertOneRecordPerRequest(gateway.records, requestsSent);
  return gateway.records;
}
