// Bounded metric labels: model names come from clients, so only the configured names plus the first
// `maxModels` others get their own label value; the rest share `other`. Ids, keys and URLs are never labels.
// prom-client escapes a label value's backslash, quote and line feed only, so the control characters of a
// client's model name (CR, ESC, NUL...) are written as `\uXXXX` text before it becomes a label.
import { escapeControlCharacters } from '../../shared/control-characters.js';

import { NO_MODEL_LABEL } from '../../shared/no-model-label.js';

export const OTHER_MODEL = 'other';

export class ModelLabels {
  readonly #allowed: Set<string>;
  readonly #max: number;
  #extra = 0;

  constructor(configured: readonly string[], maxModels: number) {
    this.#allowed = new Set(configured);
    this.#max = maxModels;
  }

  label(model: string | null): string {
    if (model === null) return NO_MODEL_LABEL;
    if (this.#allowed.has(model)) return model;
    const shown = escapeControlCharacters(model);
    if (shown !== model) return this.label(shown);
    if (this.#extra >= this.#max || model.length > 200) return OTHER_MODEL;
    this.#extra++;
    this.#allowed.add(model);
    return model;
  }
}

export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}
