// SIGHUP reopens the records file, the convention logrotate's `postrotate` relies on (`kill -HUP`): after it
// renamed the file, the gateway lets go of the renamed one and creates the configured path anew. A cluster worker
// also obeys its primary, which passes its own SIGHUP on (src/gateway/cluster/primary.ts). Without a records
// file, SIGHUP is still taken (and said so), so it never ends the gateway as Node's default would.
import { toWorker } from '../cluster/messages.js';
import type { Gateway } from '../context.js';

/** Reopens on SIGHUP and on the primary's word until the returned function is called. */
export function reopenRecordsOnHangup(gateway: Gateway): () => void {
  const reopen = (why: string): void => {
    const { records } = gateway.context;
    if (records === null) {
      gateway.app.log.info({}, `${why}: no records file to reopen`);
      return;
    }
    records.reopen();
    gateway.app.log.info({ file: records.path }, `${why}: reopening the records file ${records.path}`);
  };
  const onHangup = (): void => reopen('SIGHUP');
  const onPrimary = (raw: unknown): void => {
    if (toWorker(raw)?.type === 'tokenmeter:reopen') reopen('SIGHUP (from the primary)');
  };
  process.on('SIGHUP', onHangup);
  if (process.send !== undefined) process.on('message', onPrimary);
  return () => {
    process.off('SIGHUP', onHangup);
    process.off('message', onPrimary);
  };
}
