// Preloaded into a child (NODE_OPTIONS=--import) whose peak memory a test bounds: as the process exits, however it
// exits (a normal end, process.exit, Node's exit 13 for a top-level await left unsettled), it writes its peak
// resident set size as one line on stderr, read by maxRssMbOf.
process.on('exit', () => {
  process.stderr.write(`test: maxRSS ${process.resourceUsage().maxRSS} kB\n`);
});
