// A child's peak memory, as test/helpers/report-max-rss.ts reports it when preloaded.
import { fileURLToPath, pathToFileURL } from 'node:url';

/** NODE_OPTIONS that make a child report its peak RSS on exit. */
export function reportMaxRssOptions(): string {
  const preload = pathToFileURL(fileURLToPath(new URL('./report-max-rss.js', import.meta.url)));
  return `--import="${preload}"`;
}

/** The peak RSS in MB the child reported on stderr; undefined when it said nothing (killed by a signal). */
export function maxRssMbOf(stderr: string): number | undefined {
  const kb = /test: maxRSS (\d+) kB/.exec(stderr)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}
