// The shipped dashboards/prometheus/prometheus.yml, pointed at the gateways and simulators under test: same jobs,
// same rules, targets and intervals replaced. Each replacement must hit exactly once, so a reshaped shipped file
// fails here instead of silently scraping nothing.
export interface TestTargets {
  /** `127.0.0.1:PORT` of each gateway and of each simulator: several of each stand for replicas. */
  readonly gateways: readonly string[];
  readonly sims: readonly string[];
  /** Absolute path of the rules folder. */
  readonly rulesDir: string;
}

function replaceOnce(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1)
    throw new Error(`expected "${from}" once in the shipped prometheus.yml, found it ${count} times`);
  return text.replace(from, to);
}

/** Replaces the one `- target` line with one line per target, at its indentation. */
function replaceTarget(text: string, shipped: string, targets: readonly string[]): string {
  const line = new RegExp(`^( *)- ${shipped}$`, 'm').exec(text);
  const indent = line?.[1] ?? '';
  return replaceOnce(text, `${indent}- ${shipped}`, targets.map((t) => `${indent}- ${t}`).join('\n'));
}

export function testScrapeConfig(shipped: string, targets: TestTargets): string {
  let text = shipped;
  text = replaceTarget(text, 'gateway:8080', targets.gateways);
  text = replaceTarget(text, 'sim:8000', targets.sims);
  text = replaceOnce(text, '- /etc/prometheus/rules/*.yml', `- ${targets.rulesDir}/*.yml`);
  // One-second scrapes and rule evaluations keep the test short.
  text = replaceOnce(text, 'scrape_interval: 10s', 'scrape_interval: 1s');
  text = replaceOnce(text, 'evaluation_interval: 10s', 'evaluation_interval: 1s');
  return text;
}
