// The leanest Node proxy (leanest-proxy.ts) as a process of its own, for benchmarks that measure it from outside
// (/proc): `node leanest-proxy-process.js <upstream origin>` prints `PORT <n>` once it listens.
import { startLeanestProxy } from './leanest-proxy.js';

const upstream = process.argv[2];
if (upstream === undefined) throw new Error('usage: leanest-proxy-process.js <upstream origin>');
const proxy = await startLeanestProxy(upstream);
process.stdout.write(`PORT ${proxy.port}\n`);
process.once('SIGTERM', () => process.exit(0));
