// The gateway's `model` label for a request that named no model (a model list, a probe such as GET /version, a
// path no route serves): written by src/gateway/metrics/gateway-metrics.ts, read by `top`, which keeps such requests
// out of its rows of model traffic.

export const NO_MODEL_LABEL = 'none';
