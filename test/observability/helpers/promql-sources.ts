// Every PromQL expression the project ships, gathered from where Grafana and Prometheus will read them: the
// dashboard's panel targets and template-variable queries, and the `expr` of every recording and alert rule.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ShippedExpression {
  /** Where it comes from, for messages: `dashboard panel "TTFT" A`, `rule upstream_model:...`. */
  readonly source: string;
  readonly expr: string;
  readonly kind: 'panel' | 'variable' | 'record' | 'alert';
}

interface DashboardTarget {
  readonly expr?: string;
  readonly refId?: string;
}
interface DashboardPanel {
  readonly title?: string;
  readonly targets?: readonly DashboardTarget[];
  readonly panels?: readonly DashboardPanel[];
}
interface DashboardVariable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query?: string };
}
export interface Dashboard {
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly DashboardVariable[] };
}

function panelExpressions(panels: readonly DashboardPanel[], out: ShippedExpression[]): void {
  for (const panel of panels) {
    for (const target of panel.targets ?? []) {
      if (target.expr === undefined || target.expr === '') continue;
      out.push({
        source: `dashboard panel "${panel.title ?? '?'}" ${target.refId ?? ''}`.trim(),
        expr: target.expr,
        kind: 'panel',
      });
    }
    // Collapsed rows keep their panels inside the row.
    panelExpressions(panel.panels ?? [], out);
  }
}

export function dashboardExpressions(dashboard: Dashboard): ShippedExpression[] {
  const out: ShippedExpression[] = [];
  panelExpressions(dashboard.panels, out);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
    out.push({ source: `dashboard variable $${variable.name}`, expr: query, kind: 'variable' });
  }
  return out;
}

/**
 * The `record`/`alert` names and `expr`s of a rules file as this project writes them: `expr:` either inline or
 * as a `|` block. A shape this reader does not know fails loudly (every rule must yield exactly one expr).
 */
export function ruleExpressions(text: string, file: string): ShippedExpression[] {
  const lines = text.split('\n');
  const out: ShippedExpression[] = [];
  let pending: { name: string; kind: 'record' | 'alert' } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const rule = /^\s*- (record|alert):\s*(\S+)\s*$/.exec(line);
    if (rule !== null) {
      if (pending !== undefined) throw new Error(`${file}: rule ${pending.name} has no expr`);
      pending = { kind: rule[1] === 'record' ? 'record' : 'alert', name: rule[2] ?? '' };
      continue;
    }
    const expr = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (expr === null) continue;
    if (pending === undefined) throw new Error(`${file}:${i + 1}: expr outside a rule`);
    let body = expr[2] ?? '';
    if (body === '|' || body === '|-' || body === '>' || body === '>-') {
      const indent = (expr[1] ?? '').length;
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const next = lines[i + 1] ?? '';
        if (next.trim() !== '' && next.length - next.trimStart().length <= indent) break;
        block.push(next.trim());
        i++;
      }
      body = block.filter((l) => l !== '').join(' ');
    }
    out.push({ source: `${file} ${pending.kind} ${pending.name}`, expr: body, kind: pending.kind });
    pending = undefined;
  }
  if (pending !== undefined) throw new Error(`${file}: rule ${pending.name} has no expr`);
  return out;
}

export function rulesDirExpressions(dir: string): ShippedExpression[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .flatMap((f) => ruleExpressions(readFileSync(join(dir, f), 'utf8'), f));
}
