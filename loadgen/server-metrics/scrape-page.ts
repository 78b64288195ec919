// Fetches one server metrics page. Never throws: a page that cannot be had becomes a sentence. No credential is
// sent: vLLM serves /metrics without its --api-key, and the page's URL may be another host than the API's.

import { errorCode, failureKindOfCode } from '../../src/measure/network-failure.js';
import { boundedText } from '../../src/shared/bounded-text.js';
import { request } from '../engine/undici-send.js';

// vLLM's page is some tens of kilobytes per model and engine; this only bounds a wrong URL.
const MAX_PAGE_BYTES = 8 * 1024 * 1024;

export type PageFetch =
  | { readonly ok: true; readonly page: string }
  | { readonly ok: false; readonly problem: string };

/** The URL as shown and saved: without user info, which may hold a password. */
export function shownMetricsUrl(url: string): string {
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  return shown.toString();
}

export async function fetchMetricsPage(url: string, timeoutMs: number): Promise<PageFetch> {
  try {
    const answer = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return { ok: false, problem: `answered HTTP ${answer.statusCode}` };
    }
    const page = await boundedText(answer.body, MAX_PAGE_BYTES);
    return page === null
      ? { ok: false, problem: `the page is over ${MAX_PAGE_BYTES} bytes` }
      : { ok: true, page };
  } catch (error) {
    const kind = failureKindOfCode(errorCode(error));
    return {
      ok: false,
      problem: `cannot reach it (${kind}: ${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
