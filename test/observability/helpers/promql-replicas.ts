// What makes a shipped expression correct across replicas (several gateways, several vLLM servers), in terms a
// test can check: every raw series is read inside a `sum` (so instances add up before a quantile or a ratio is
// taken), aggregations name the labels they keep (`sum by (...)`: a label added later, such as a per-request
// `role`, cannot split a panel), and those sums can be restricted to one replica's targets, so a real Prometheus
// can show that the whole equals the sum of the parts.

/** A raw metric name as scraped (not a recorded `level:metric:operation` name). */
export const RAW_METRIC = /(?<![\w:])(?:tokenmeter_[a-z0-9_]+|vllm:[a-z0-9_]+)(?![\w:])/g;

/** Index of the `)` that closes the `(` at `open`. */
function closingParen(expr: string, open: number): number {
  let depth = 0;
  for (let i = open; i < expr.length; i++) {
    if (expr[i] === '(') depth++;
    else if (expr[i] === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses in ${expr}`);
}

/** The outermost `sum(...)`, `sum by (...) (...)` and `sum without (...) (...)` of `expr`, in order. */
export function outermostSums(expr: string): string[] {
  const out: string[] = [];
  const start = /\bsum\s*(?:(?:by|without)\s*\([^()]*\)\s*)?\(/g;
  for (let match = start.exec(expr); match !== null; match = start.exec(expr)) {
    const end = closingParen(expr, match.index + match[0].length - 1);
    out.push(expr.slice(match.index, end + 1));
    start.lastIndex = end + 1;
  }
  return out;
}

/** Raw metrics of `expr` read outside any `sum`: each would split a panel or a rule by instance. */
export function unsummedMetrics(expr: string): string[] {
  let outside = expr;
  for (const sum of outermostSums(expr)) outside = outside.replace(sum, ' ');
  return [...outside.matchAll(RAW_METRIC)].map((m) => m[0]);
}

/** Aggregations that do not name what they keep (`without`), or that do not add across instances. */
export function nonAdditiveAggregations(expr: string): string[] {
  const found = expr.match(
    /\b(?:without|avg|min|max|count|count_values|group|topk|bottomk|quantile|stddev|stdvar)\s*(?:by\b|without\b|\()/g,
  );
  return found ?? [];
}

// Labels that tell one scrape target from another, as Prometheus and its Kubernetes discovery attach them.
const TARGET_LABELS = new Set(['instance', 'job', 'pod', 'namespace', 'node', 'container']);

/** Target labels an aggregation keeps (`by (instance)`): a panel split per replica. */
export function targetLabelsKept(expr: string): string[] {
  return [...expr.matchAll(/\bby\s*\(([^()]*)\)/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((l) => l.trim())
      .filter((l) => TARGET_LABELS.has(l)),
  );
}

/** `expr` with every recorded series replaced by its rule's expression, recursively. */
export function expandRecorded(expr: string, recorded: ReadonlyMap<string, string>): string {
  let out = expr;
  for (let depth = 0; depth < 10; depth++) {
    const before = out;
    out = out.replace(/\b[a-z_]+:[a-z0-9_]+:[a-z0-9_]+\b/g, (name) => {
      const rule = recorded.get(name);
      if (rule === undefined) throw new Error(`${name} is not recorded`);
      return `(${rule})`;
    });
    if (out === before) return out;
  }
  throw new Error(`recorded series nest too deep in ${expr}`);
}

/** `expr` reading only these targets: `instance=~"a|b"` added to every raw selector. */
export function onlyInstances(expr: string, instances: readonly string[]): string {
  const matcher = `instance=~"${instances.join('|')}"`;
  return expr.replace(
    new RegExp(`${RAW_METRIC.source}(\\{[^}]*\\})?`, 'g'),
    (whole, selector: string | undefined) => {
      const name = whole.slice(0, whole.length - (selector?.length ?? 0));
      const inner = selector === undefined ? '' : selector.slice(1, -1).trim();
      return `${name}{${inner === '' ? matcher : `${inner}, ${matcher}`}}`;
    },
  );
}
