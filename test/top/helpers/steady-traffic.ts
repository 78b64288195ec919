// Streamed chat requests sent one after another through a gateway until stopped, so `top` has rates to show.
import { request } from 'undici';

export interface SteadyTraffic {
  /** Stops after the request in flight, and rejects if any request failed. */
  stop(): Promise<void>;
}

export function sendSteadily(gatewayUrl: string, model: string): SteadyTraffic {
  let sending = true;
  const loop = (async () => {
    while (sending) {
      const answer = await request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      await answer.body.text();
    }
  })();
  return {
    stop: () => {
      sending = false;
      return loop;
    },
  };
}
