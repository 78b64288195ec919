// The doctor's HTTP calls: one small request at a time, with a timeout, never throwing: a refused connection or a
// timeout is an answer too, and each becomes a line of the checklist.
import { request } from 'undici';
import { failureKindOfCode } from '../measure/network-failure.js';

export type ProbeAnswer =
  | { readonly kind: 'response'; readonly status: number; readonly body: string; readonly ms: number }
  | { readonly kind: 'error'; readonly code: string; readonly message: string };

const MAX_BODY_CHARS = 4000;

export interface ProbeOptions {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly timeoutMs: number;
}

export async function probe(url: string, options: ProbeOptions): Promise<ProbeAnswer> {
  const started = performance.now();
  try {
    const res = await request(url, {
      method: options.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const text = await res.body.text();
    return {
      kind: 'response',
      status: res.statusCode,
      body: text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}...` : text,
      ms: performance.now() - started,
    };
  } catch (error) {
    const err = error as { code?: string; message?: string };
    return { kind: 'error', code: err.code ?? 'UNKNOWN', message: err.message ?? String(error) };
  }
}

/** A network failure in words, with what to do; `code` is sorted by src/measure/network-failure.ts. */
export function describeNetworkError(code: string, where: string): { detail: string; fix: string } {
  switch (failureKindOfCode(code)) {
    case 'refused':
      return {
        detail: `${where} refused the connection`,
        fix: 'is the server running, on this host and port?',
      };
    case 'dns':
      return { detail: `the host of ${where} does not resolve`, fix: 'check the host name in --base-url' };
    case 'connect_timeout':
    case 'headers_timeout':
    case 'idle_timeout':
    case 'total_timeout':
      return {
        detail: `${where} did not answer in time`,
        fix: 'check the address, a firewall, or raise --timeout-ms',
      };
    case 'reset':
      return { detail: `${where} closed the connection`, fix: 'check http:// versus https:// and the port' };
    case 'tls':
      return {
        detail: `${where}: TLS certificate not trusted (${code})`,
        fix: 'use the right https URL, or trust its CA with NODE_EXTRA_CA_CERTS',
      };
    default:
      return { detail: `${where}: ${code}`, fix: 'check --base-url' };
  }
}

/** The `error.message` of an OpenAI-style error body, else the start of the body. */
export function errorMessageIn(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      error?: { message?: string } | string;
      message?: string;
      detail?: unknown;
    };
    if (typeof parsed.error === 'string') return parsed.error;
    if (parsed.error?.message) return parsed.error.message;
    if (parsed.message) return parsed.message;
    if (parsed.detail !== undefined) return JSON.stringify(parsed.detail);
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return body.slice(0, 300);
}
