// The shipped dashboards/prometheus/prometheus.yml, pointed at a gateway and simulator under test: same jobs,
// same rules, targets and intervals replaced. Each replacement must hit exactly once, so a reshaped shipped file
// fails here instead of silently scraping nothing.
export interface TestTargets {
  /** `127.0.0.1:PORT` of the gateway and of the simulator. */
  readonly gateway: string;
  readonly sim: string;
  /** Absolute path of the rules folder. */
  readonly rulesDir: string;
}

function replaceOnce(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1)
    throw new Error(`expected "${from}" once in the shipped prometheus.yml, found it ${count} times`);
  return text.replace(from, to);
}

export function testScrapeConfig(shipped: string, targets: TestTargets): string {
  let text = shipped;
  text = replaceOnce(text, '- gateway:8080', `- ${targets.gateway}`);
  text = replaceOnce(text, '- sim:8000', `- ${targets.sim}`);
  text = replaceOnce(text, '- /etc/prometheus/rules/*.yml', `- ${targets.rulesDir}/*.yml`);
  // One-second scrapes and rule evaluations keep the test short.
  text = replaceOnce(text, 'scrape_interval: 10s', 'scrape_interval: 1s');
  text = replaceOnce(text, 'evaluation_interval: 10s', 'evaluation_interval: 1s');
  return text;
}
