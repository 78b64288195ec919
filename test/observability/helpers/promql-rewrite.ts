// Turns shipped expressions into queries Prometheus's HTTP API can run: Grafana's variables replaced by concrete
// values, Grafana's label_values() turned into the PromQL it stands for, and an alert's comparisons made `bool`
// so a healthy system still returns a value per series (a plain `< 0.9` returns nothing when all is well, which
// would prove nothing about the series and labels the alert relies on).

/** Concrete values for the variables the dashboard uses: every upstream and model, windows of a short test. */
export const VARIABLE_VALUES: Readonly<Record<string, string>> = {
  upstream: '.*',
  model: '.*',
  role: 'primary',
  __rate_interval: '1m',
  __interval: '10s',
  __range: '5m',
};

export function substituteVariables(expr: string): string {
  const out = expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g, (whole, braced?: string, bare?: string) => {
    const value = VARIABLE_VALUES[braced ?? bare ?? ''];
    if (value === undefined) throw new Error(`no test value for ${whole} in ${expr}`);
    return value;
  });
  return out;
}

/** `label_values(metric{sel}, label)` -> `group by (label) (metric{sel})`: the series Grafana lists values of. */
export function labelValuesAsPromql(query: string): string {
  const match = /^\s*label_values\(\s*(.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$/.exec(query);
  if (match === null) throw new Error(`not a label_values(metric, label) query: ${query}`);
  return `group by (${match[2]}) (${match[1]})`;
}

const COMPARISONS = ['==', '!=', '>=', '<=', '>', '<'];

/** Adds `bool` after every comparison operator outside label matchers and strings (unless already there). */
export function comparisonsAsBool(expr: string): string {
  let out = '';
  let braces = 0;
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] ?? '';
    if (quote !== null) {
      out += c;
      if (c === '\\') out += expr[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    if (c === '{') braces++;
    if (c === '}') braces--;
    const op = braces === 0 ? COMPARISONS.find((o) => expr.startsWith(o, i)) : undefined;
    if (op === undefined) {
      out += c;
      continue;
    }
    out += op;
    i += op.length - 1;
    if (!/^\s*bool\b/.test(expr.slice(i + 1))) out += ' bool';
  }
  return out;
}
