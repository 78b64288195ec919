// A real streamed request, read the way a benchmark reads it: every chunk must carry `choices` (the usage-only
// chunk carries an empty list), the usage chunk must come when asked for, `[DONE]` must end the stream, and an
// error object inside a 200 (the "reading choices" failure) is caught and shown. Then the first-token time and
// the stream rate, as a sanity check.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { EventClassifier } from '../measure/answer-facts.js';
import { networkFailure } from '../measure/network-failure.js';
import { streamFigures } from '../measure/stream-figures.js';
import { StreamMeter } from '../measure/stream-meter.js';
import { streamOutcome } from '../measure/stream-outcome.js';
import type { StreamTiming } from '../measure/stream-timing.js';
import { backendProtocol } from '../protocols/backends.js';
import { type CheckResult, check, withOutcome } from './check.js';
import { type Backend, type EndpointContext, endpointUrl } from './endpoint-checks.js';
import { describeNetworkError, errorMessageIn } from './http-probe.js';

const MAX_TOKENS = 32;

/** Wraps a classifier to count events that have no `choices` at all (what crashes vLLM's benchmark). */
function choicesWatcher(inner: EventClassifier) {
  const seen = { withoutChoices: 0, example: '' };
  const classifier: EventClassifier = {
    protocol: inner.protocol,
    classify(event) {
      const facts = inner.classify(event);
      if (event.data !== '[DONE]' && !facts.unparseable && !/"choices"\s*:/.test(event.data)) {
        if (seen.withoutChoices++ === 0) seen.example = event.data.slice(0, 300);
      }
      return facts;
    },
  };
  return { classifier, seen };
}

export async function checkStream(
  ctx: EndpointContext,
  model: string,
  backend: Backend,
): Promise<CheckResult[]> {
  const protocol = backendProtocol(backend);
  const chat = protocol.name === 'openai-chat';
  const url = endpointUrl(ctx.base, `/${protocol.endpoint}`);
  const prompt = 'Write a short paragraph about measuring latency.';
  const body = {
    model,
    ...(chat ? { messages: [{ role: 'user', content: prompt }] } : { prompt }),
    max_tokens: MAX_TOKENS,
    stream: true,
    stream_options: { include_usage: true },
  };
  const { classifier, seen } = choicesWatcher(protocol.classifier);
  const meter = new StreamMeter({ classifier });
  const start = performance.now();
  let status: number;
  let headersSeen = false;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ctx.headers },
      body: JSON.stringify(body),
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.timeoutMs,
    });
    status = res.statusCode;
    headersSeen = true;
    if (status < 200 || status > 299) {
      const detail = `POST ${url} (stream) answered ${status}: ${errorMessageIn(await res.body.text())}`;
      return [
        withOutcome(
          check('stream', 'streamed answer', 'fail', detail, 'fix the steps above first'),
          'http_error',
        ),
      ];
    }
    for await (const chunk of res.body) meter.onBytes(chunk as Buffer, performance.now());
  } catch (error) {
    meter.end(performance.now());
    const failure = networkFailure(error, headersSeen);
    const code = failure.code ?? 'UNKNOWN';
    const timing = meter.result();
    if (headersSeen) {
      const how = failure.outcome === 'upstream_timeout' ? 'stalled' : 'broke';
      const detail = `the stream ${how} after ${timing.contentEvents} chunk(s) (${code}) with no finish and no [DONE]`;
      return [
        withOutcome(
          check(
            'stream',
            'streamed answer',
            'fail',
            detail,
            'the upstream cut the answer: check its logs, timeouts of proxies in between',
          ),
          failure.outcome,
        ),
      ];
    }
    const { detail, fix } = describeNetworkError(code, `POST ${url}`);
    return [withOutcome(check('stream', 'streamed answer', 'fail', detail, fix), failure.outcome)];
  }
  meter.end(performance.now());
  const timing = meter.result();
  const verdict = streamOutcome(status, timing);
  return [withOutcome(streamVerdict(timing, seen), verdict.outcome), timingVerdict(timing, start)];
}

function streamVerdict(t: StreamTiming, seen: { withoutChoices: number; example: string }): CheckResult {
  const title = 'streamed answer';
  if (t.errorMessage !== undefined) {
    return check(
      'stream',
      title,
      'fail',
      `HTTP 200, but the stream carries an error instead of choices: "${t.errorMessage}"`,
      'the provider failed this request: retry, or check the model and quota at the provider; benchmark scripts that read choices[0] crash here ("reading choices")',
    );
  }
  if (seen.withoutChoices > 0) {
    return check(
      'stream',
      title,
      'fail',
      `${seen.withoutChoices} chunk(s) without "choices", e.g. ${seen.example}`,
      'scripts that read choices[0] crash on these; tokenmeter bench handles them',
    );
  }
  const missing: string[] = [];
  if (t.contentEvents === 0) missing.push('no content chunk');
  if (t.usageOutputTokens === undefined)
    missing.push('no usage chunk (stream_options.include_usage ignored: token counts will be estimated)');
  if (!t.sawDone) missing.push('no data: [DONE] (the stream ended without its end marker)');
  if (t.contentEvents === 0 || !t.sawDone) {
    return check(
      'stream',
      title,
      'fail',
      missing.join('; '),
      'the stream is not OpenAI-compatible: check the endpoint and backend',
    );
  }
  const detail = `${t.contentEvents} content chunks with choices, finish_reason ${t.finishReason ?? 'missing'}, [DONE]`;
  return missing.length > 0
    ? check(
        'stream',
        title,
        'warn',
        `${detail}; ${missing.join('; ')}`,
        'tokenmeter counts tokens itself when usage is missing',
      )
    : check('stream', title, 'pass', `${detail}, usage chunk`);
}

function timingVerdict(timing: StreamTiming, start: number): CheckResult {
  const l = streamFigures(timing, start);
  if (l.ttftMs === undefined) return check('timing', 'first token and rate', 'skip', 'no content arrived');
  const rate = l.tpotMs !== undefined && l.tpotMs > 0 ? 1000 / l.tpotMs : undefined;
  const detail = `TTFT ${l.ttftMs.toFixed(0)} ms, ${l.outputTokens} tokens${rate === undefined ? '' : `, ${rate.toFixed(1)} tokens/s after the first`}`;
  if (l.ttftMs > 10_000) {
    return check(
      'timing',
      'first token and rate',
      'warn',
      detail,
      'a first token after 10 s suggests a cold start or a queue: check load before benchmarking',
    );
  }
  return check('timing', 'first token and rate', 'pass', detail);
}
