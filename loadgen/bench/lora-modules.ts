// --lora-modules: each request names one of the server's LoRA adapters as its `model`, as vLLM's client does:
// `random` (its default) draws one per request with Python's `random.choice`, continuing the global state the
// dataset left (so the same --seed picks the same adapters as vLLM), `round-robin` cycles through them in order.

import type { PythonRandom } from '../vllm-random/python-random.js';

export const LORA_ASSIGNMENTS = ['random', 'round-robin'] as const;
export type LoraAssignment = (typeof LORA_ASSIGNMENTS)[number];

export function loraModelNames(
  count: number,
  modules: readonly string[],
  assignment: LoraAssignment,
  random: PythonRandom,
): string[] {
  if (assignment === 'round-robin')
    return Array.from({ length: count }, (_, i) => modules[i % modules.length] as string);
  return Array.from({ length: count }, () => random.choice(modules));
}
