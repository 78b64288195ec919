// Every string that comes from a result file (model names, labels, metadata, error bodies) reaches the page
// through these two functions only. Escaping the five characters below is enough for both text and
// double-quoted attribute values in HTML and inline SVG; the page runs no script, so nothing is ever parsed
// as code even if a value looks like some.

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an element's content or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** Any value from data, stringified then escaped (null and undefined print as an em dash). */
export function show(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return escapeHtml(String(value));
}
