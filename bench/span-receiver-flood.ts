// What crafted OTLP exports cost the gateway's span receiver: exports of as many empty spans as the 4 MiB body
// bound holds (2,097,146 in protobuf, 1,398,090 in JSON) and of one span with as many empty attributes, sent
// one at a time and eight at once (the receiver's reading slots) to a real `tokenmeter serve --span-receiver`
// child process, while one chat stream runs through it. Prints the gateway's RSS before and at its peak (/proc)
// and the longest gap in the stream (its upstream writes a chunk every 5 ms), with each export's answer. Not part
// of `npm test` (test/tracing-receiver/receiver-flood.test.ts asserts the bounds). Run from the repository root:
//
//   npm run build && node dist/bench/span-receiver-flood.js [--copies 1,8] [--kinds protobuf-spans,json-spans]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_RECEIVER_MAX_BODY_BYTES } from '../src/tracing/receiver/span-receiver.js';
import {
  jsonEmptySpans,
  protobufEmptyAttributes,
  protobufEmptyScopes,
  protobufEmptySpans,
} from './helpers/crafted-exports.js';
import { floodReceiver, startTickingUpstream } from './helpers/receiver-flood.js';
import { spawnGateway } from './helpers/spawn-gateway.js';

const KINDS = {
  'protobuf-spans': () => ({ body: protobufEmptySpans(MAX), type: 'application/x-protobuf' }),
  'protobuf-attributes': () => ({ body: protobufEmptyAttributes(MAX), type: 'application/x-protobuf' }),
  'protobuf-scopes': () => ({ body: protobufEmptyScopes(MAX), type: 'application/x-protobuf' }),
  'json-spans': () => ({ body: jsonEmptySpans(MAX), type: 'application/json' }),
} as const;
type Kind = keyof typeof KINDS;

const { values: args } = parseArgs({
  options: {
    copies: { type: 'string', default: '1,8' },
    kinds: { type: 'string', default: Object.keys(KINDS).join(',') },
  },
});
const MAX = DEFAULT_RECEIVER_MAX_BODY_BYTES;
const MB = 2 ** 20;

const upstream = await startTickingUpstream();
const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-receiver-flood-'));
try {
  for (const kind of (args.kinds ?? '').split(',') as Kind[]) {
    const { body, type } = KINDS[kind]();
    for (const copies of (args.copies ?? '').split(',').map(Number)) {
      // A fresh gateway for each, so one's heap does not carry into the next.
      const probe = join(dir, `${kind}-${copies}.probe.json`);
      const gateway = await spawnGateway(
        ['--upstream', upstream.url, '--metrics-port', '0', '--metrics-host', '127.0.0.1', '--span-receiver'],
        join(dir, `${kind}-${copies}.log`),
        undefined,
        probe,
      );
      try {
        const r = await floodReceiver(gateway, body, type, copies, probe);
        const statuses = r.answers.map((a) => a.status).join(',');
        console.log(
          `${kind.padEnd(20)} ${(body.length / MB).toFixed(2)} MiB x${copies}: RSS ${(r.idleRss / MB).toFixed(0)} -> ` +
            `${(r.peakRss / MB).toFixed(0)} MB; loop held at most ${r.loopHeld?.maxHeldMs.toFixed(1)} ms of CPU ` +
            `(longest turn ${r.loopHeld?.maxGapMs.toFixed(0)} ms of wall clock); longest stream gap ` +
            `${r.maxGapMs.toFixed(0)} ms (quiet ${r.quietGapMs.toFixed(0)} ms, own stall ${r.ownStallMs.toFixed(0)} ms); ` +
            `answered in ${r.elapsedMs.toFixed(0)} ms: ${statuses} ` +
            `${JSON.stringify(r.answers[0]?.body.slice(0, 160))}`,
        );
      } finally {
        gateway.process.kill('SIGTERM');
        await gateway.exited;
      }
    }
  }
} finally {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
}
