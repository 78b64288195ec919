// Preloaded into a `tokenmeter serve` child (NODE_OPTIONS=--import) to stand in for a hung network mount: on
// SIGUSR2 it parks every libuv threadpool thread (UV_THREADPOOL_SIZE of them) in an open() of a FIFO nobody opens
// for reading, so every file operation the process starts after that, its records writes and the stat calls
// before them included, waits forever, as on a hard-mounted NFS share whose server is gone. It says so on stderr
// (a pipe, written at once on the main thread, not through the pool).
import { open } from 'node:fs';

const fifo = process.env['TOKENMETER_TEST_PARK_FIFO'];
const threads = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4);

if (fifo !== undefined) {
  process.on('SIGUSR2', () => {
    for (let i = 0; i < threads; i++) open(fifo, 'w', () => {});
    process.stderr.write('test: every threadpool thread parked\n');
  });
}
