// The simulator's /metrics, named like vLLM's server metrics so the same dashboards show a simulated and a real
// deployment, plus two of its own: emission lateness and cancellations.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// vLLM's own bucket boundaries (seconds), so server-side panels look the same for both.
const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const E2E_BUCKETS = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];
const LATENESS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1];

export class SimMetrics {
  readonly registry = new Registry();
  readonly ttft: Histogram<'model_name'>;
  readonly itl: Histogram<'model_name'>;
  readonly e2e: Histogram<'model_name'>;
  readonly running: Gauge<'model_name'>;
  readonly waiting: Gauge<'model_name'>;
  readonly promptTokens: Counter<'model_name'>;
  readonly generationTokens: Counter<'model_name'>;
  readonly finished: Counter<'model_name' | 'finished_reason'>;
  readonly lateness: Histogram;
  readonly cancelled: Counter;

  constructor() {
    const registers = [this.registry];
    const labelNames = ['model_name'] as const;
    this.ttft = new Histogram({
      name: 'vllm:time_to_first_token_seconds',
      help: 'Histogram of time to first token in seconds.',
      labelNames,
      buckets: TTFT_BUCKETS,
      registers,
    });
    this.itl = new Histogram({
      name: 'vllm:inter_token_latency_seconds',
      help: 'Histogram of inter-token latency in seconds.',
      labelNames,
      buckets: ITL_BUCKETS,
      registers,
    });
    this.e2e = new Histogram({
      name: 'vllm:e2e_request_latency_seconds',
      help: 'Histogram of end to end request latency in seconds.',
      labelNames,
      buckets: E2E_BUCKETS,
      registers,
    });
    this.running = new Gauge({
      name: 'vllm:num_requests_running',
      help: 'Number of requests in model execution batches.',
      labelNames,
      registers,
    });
    this.waiting = new Gauge({
      name: 'vllm:num_requests_waiting',
      help: 'Number of requests waiting to be processed.',
      labelNames,
      registers,
    });
    this.promptTokens = new Counter({
      name: 'vllm:prompt_tokens_total',
      help: 'Number of prefill tokens processed.',
      labelNames,
      registers,
    });
    this.generationTokens = new Counter({
      name: 'vllm:generation_tokens_total',
      help: 'Number of generation tokens processed.',
      labelNames,
      registers,
    });
    this.finished = new Counter({
      name: 'vllm:request_success_total',
      help: 'Count of finished requests by finish reason (abort = client went away).',
      labelNames: ['model_name', 'finished_reason'],
      registers,
    });
    this.lateness = new Histogram({
      name: 'tokenmeter_sim_emission_lateness_seconds',
      help: 'How late the simulator wrote each chunk compared to its timing model.',
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.cancelled = new Counter({
      name: 'tokenmeter_sim_cancelled_requests_total',
      help: 'Requests whose client disconnected before the answer was complete.',
      registers,
    });
  }
}
