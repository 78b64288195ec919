// The Dockerfile and compose.yaml, read for their essentials (there is no Docker engine to build them here;
// scripts/check-image-steps.sh runs their steps for real): multi-stage, production install, non-root, a health
// check on a path the gateway serves, `serve` by default, env the CLI reads, and every file compose mounts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { serveCommand } from '../../src/cli/serve-command.js';
import { simCommand } from '../../src/cli/sim-command.js';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { loadConfigFile } from '../../src/gateway/config/serve-config.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { repoPath } from './helpers/repo-paths.js';

const dockerfile = readFileSync(repoPath('Dockerfile'), 'utf8');
const compose = readFileSync(repoPath('compose.yaml'), 'utf8');
const script = readFileSync(repoPath('scripts/check-image-steps.sh'), 'utf8');

/** Dockerfile instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const stages: string[][] = [];
for (const line of instructions) {
  if (line.startsWith('FROM ')) stages.push([]);
  stages.at(-1)?.push(line);
}
const buildStage = stages[0] ?? [];
const finalStage = stages.at(-1) ?? [];

function copySources(stage: readonly string[]): string[] {
  return stage
    .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
    .flatMap((l) => l.slice(5).trim().split(/\s+/).slice(0, -1));
}

function scriptList(name: string): string[] {
  const match = new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(script);
  return (match?.[1] ?? '').split(/\s+/).filter((s) => s !== '');
}

test('multi-stage on a current Node LTS image: TypeScript compiled in a build stage', () => {
  assert.equal(stages.length, 2);
  assert.match(buildStage[0] ?? '', /^FROM \S+ AS build$/);
  const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
  const major = Number(image?.[1]);
  assert.ok(major >= 22 && major % 2 === 0, `node:${major} is not a current LTS line`);
  assert.ok(buildStage.some((l) => /^RUN npx tsc -p tsconfig\.json$/.test(l)));
  assert.ok(finalStage.some((l) => l === 'COPY --from=build /src/dist ./dist'));
});

test('the final stage installs production dependencies only, without the tsc `prepare` script', () => {
  assert.ok(finalStage.some((l) => /^RUN npm ci --omit=dev --ignore-scripts\b/.test(l)));
  assert.ok(!finalStage.some((l) => /npm (install|i) /.test(l)));
});

test('runs as a non-root user, serve by default, listening on every interface', () => {
  const user = finalStage.filter((l) => l.startsWith('USER ')).at(-1);
  assert.ok(user !== undefined && !/^USER (root|0)(:|$)/.test(user), `USER: ${user}`);
  assert.ok(finalStage.includes('ENTRYPOINT ["node", "/app/bin/tokenmeter.js"]'));
  assert.ok(finalStage.includes('CMD ["serve"]'));
  assert.match(dockerfile, /TOKENMETER_HOST=0\.0\.0\.0/);
});

test("commands run in a folder the image's user owns, and compose's load service keeps it on a volume", () => {
  const user =
    finalStage
      .filter((l) => l.startsWith('USER '))
      .at(-1)
      ?.slice(5) ?? '';
  const workdir =
    finalStage
      .filter((l) => l.startsWith('WORKDIR '))
      .at(-1)
      ?.slice(8) ?? '';
  // bench writes its records file into the working directory: root-owned /app would refuse it (EACCES).
  assert.ok(
    finalStage.some((l) => l.startsWith('RUN ') && l.includes(`chown ${user}:${user} ${workdir}`)),
    `WORKDIR ${workdir} is not chowned to ${user}`,
  );
  assert.match(service('load'), new RegExp(`^ {6}- [a-z-]+:${workdir}$`, 'm'));
});

test('every COPY source exists, is not excluded by .dockerignore, and check-image-steps.sh copies the same', () => {
  const ignored = readFileSync(repoPath('.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const source of [...copySources(buildStage), ...copySources(finalStage)]) {
    assert.ok(existsSync(repoPath(source)), `${source} does not exist`);
    assert.ok(
      !ignored.some((i) => source === i || source.startsWith(`${i}/`)),
      `${source} is in .dockerignore`,
    );
  }
  assert.deepEqual(scriptList('BUILD_COPIES'), copySources(buildStage));
  assert.deepEqual(scriptList('FINAL_COPIES'), copySources(finalStage));
});

test('the HEALTHCHECK probes /healthz, which the gateway answers', async (t) => {
  const healthcheck = finalStage.find((l) => l.startsWith('HEALTHCHECK '));
  assert.ok(healthcheck !== undefined);
  const path = /'\/(healthz)'/.exec(healthcheck)?.[1];
  assert.equal(path, 'healthz');
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: 'http://127.0.0.1:9/v1', keyless: true }],
  });
  t.after(() => gateway.close());
  const response = await fetch(`${gateway.url}/${path}`);
  assert.equal(response.status, 200);
});

test('every TOKENMETER_ variable the Dockerfile and compose set is one the CLI reads', () => {
  const read = new Set(
    [...serveCommand.options, ...simCommand.options].flatMap((o) => (o.env === undefined ? [] : [o.env])),
  );
  read.add('TOKENMETER_GATEWAY_KEYS');
  const set = new Set(
    [...`${dockerfile}\n${compose}`.matchAll(/\b(TOKENMETER_[A-Z_]+)(?:=|:)/g)].map((m) => m[1] ?? ''),
  );
  assert.ok(set.has('TOKENMETER_CONFIG') && set.has('TOKENMETER_HOST'));
  for (const name of set) assert.ok(read.has(name), `${name} is set but no command reads it`);
});

/** The lines of one top-level compose service (two-space indented name, deeper lines below it). */
function service(name: string): string {
  const match = new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(compose);
  assert.ok(match !== null, `service ${name} missing from compose.yaml`);
  return match[1] ?? '';
}

test('compose: gateway, simulator, load, Prometheus and Grafana; every mounted file exists', () => {
  for (const name of ['sim', 'gateway', 'load', 'prometheus', 'grafana']) service(name);
  const mounts = [...compose.matchAll(/^\s+- \.\/([^:]+):([^:\s]+)(?::ro)?$/gm)].map((m) => ({
    host: m[1] ?? '',
    container: m[2] ?? '',
  }));
  assert.equal(mounts.length, 5);
  for (const { host } of mounts) assert.ok(existsSync(repoPath(host)), `compose mounts ./${host}: missing`);
  const hosts = mounts.map((m) => m.host);
  for (const wanted of [
    'deploy/gateway.config.json',
    'dashboards/prometheus/prometheus.yml',
    'dashboards/prometheus/rules',
    'dashboards/grafana/provisioning',
    'dashboards/tokenmeter.json',
  ]) {
    assert.ok(hosts.includes(wanted), `compose does not mount ./${wanted}`);
  }
  // Grafana's dashboard provider reads the folder the dashboard file is mounted into.
  const provider = readFileSync(
    repoPath('dashboards/grafana/provisioning/dashboards/tokenmeter.yml'),
    'utf8',
  );
  const folder = /path: (\S+)/.exec(provider)?.[1];
  const dashboardMount = mounts.find((m) => m.host === 'dashboards/tokenmeter.json');
  assert.equal(dashboardMount?.container, `${folder}/tokenmeter.json`);
});

test('compose: names and ports agree across the gateway config, Prometheus targets and Grafana datasource', async () => {
  const gateway = service('gateway');
  const configMount = /- \.\/deploy\/gateway\.config\.json:(\S+):ro/.exec(gateway)?.[1];
  assert.match(gateway, new RegExp(`TOKENMETER_CONFIG: ${configMount}`));
  assert.match(gateway, /TOKENMETER_PORT: "8080"/);
  assert.match(service('sim'), /"--port", "8000"/);
  const config = validateConfig(await loadConfigFile(repoPath('deploy/gateway.config.json')));
  assert.equal(config.upstreams[0]?.baseUrl, 'http://sim:8000/v1');
  const prometheus = readFileSync(repoPath('dashboards/prometheus/prometheus.yml'), 'utf8');
  assert.match(prometheus, /- gateway:8080\n/);
  assert.match(prometheus, /- sim:8000\n/);
  const datasource = readFileSync(
    repoPath('dashboards/grafana/provisioning/datasources/prometheus.yml'),
    'utf8',
  );
  assert.match(datasource, /url: http:\/\/prometheus:9090/);
  assert.match(service('prometheus'), /- \.\/dashboards\/prometheus\/rules:\/etc\/prometheus\/rules:ro/);
  assert.match(prometheus, /- \/etc\/prometheus\/rules\/\*\.yml/);
});
