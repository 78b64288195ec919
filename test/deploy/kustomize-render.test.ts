// `kubectl kustomize deploy/kubernetes` renders what `kubectl apply -k` would send: the image and replica count of
// kustomization.yaml applied, the count copied into the autoscaler's floor, no PodMonitor unless the component is
// added, and every rendered object valid against the API schemas. Needs a kubectl whose embedded Kustomize is v5
// (components, replacements); without one the test says why and skips. Debian packages none: its
// kubernetes-client is kubectl 1.20, whose Kustomize fails on this kustomization (`json: unknown field
// "replacements"`), so CI runs this only where a newer kubectl was installed otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type TestContext, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { findOnPath } from '../observability/helpers/external-tool.js';
import { type KubernetesObject, schemaErrors } from './helpers/kubernetes-schema.js';
import { KUBERNETES_DIR, readYamlDocuments } from './helpers/manifests.js';

const KUSTOMIZE_MAJOR = 5;

/** kubectl's path, or undefined after skipping with the reason. */
function kubectlWithKustomize(t: TestContext): string | undefined {
  const kubectl = findOnPath('kubectl');
  let why: string;
  if (kubectl === undefined) why = 'kubectl is not on PATH';
  else {
    const version = execFileSync(kubectl, ['version', '--client'], { encoding: 'utf8', timeout: 10_000 });
    const major = Number(/Kustomize Version: v(\d+)/.exec(version)?.[1] ?? 0);
    if (major >= KUSTOMIZE_MAJOR) return kubectl;
    why = `${kubectl} embeds no Kustomize v${KUSTOMIZE_MAJOR} (${version.trim().replaceAll('\n', '; ')})`;
  }
  process.stdout.write(`# skipped: ${why}\n`);
  t.skip(why);
  return undefined;
}

function render(kubectl: string, dir: string): KubernetesObject[] {
  const output = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 });
  return parseAllDocuments(output).map((d) => d.toJS() as KubernetesObject);
}

function byKind(objects: readonly KubernetesObject[], kind: string): KubernetesObject {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0] as KubernetesObject;
}

interface Kustomization {
  readonly images: readonly { newName: string; newTag: string }[];
  readonly replicas: readonly { name: string; count: number }[];
}

test('kubectl kustomize renders the gateway with the image and replicas of kustomization.yaml', (t) => {
  const kubectl = kubectlWithKustomize(t);
  if (kubectl === undefined) return;
  const kustomization = readYamlDocuments(
    join(KUBERNETES_DIR, 'kustomization.yaml'),
  )[0] as unknown as Kustomization;
  const objects = render(kubectl, KUBERNETES_DIR);
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'ConfigMap',
    'Deployment',
    'HorizontalPodAutoscaler',
    'PodDisruptionBudget',
    'Secret',
    'Service',
  ]);
  assert.deepEqual(
    objects.flatMap((o) => schemaErrors(o)),
    [],
  );
  const deployment = byKind(objects, 'Deployment') as unknown as {
    spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  };
  const [image] = kustomization.images;
  assert.equal(deployment.spec.template.spec.containers[0]?.image, `${image?.newName}:${image?.newTag}`);
  const count = kustomization.replicas[0]?.count;
  assert.equal(deployment.spec.replicas, count);
  const hpa = byKind(objects, 'HorizontalPodAutoscaler') as unknown as { spec: { minReplicas: number } };
  assert.equal(hpa.spec.minReplicas, count);
});

test('with components/podmonitor the rendering adds a valid PodMonitor', (t) => {
  const kubectl = kubectlWithKustomize(t);
  if (kubectl === undefined) return;
  // What a user gets by uncommenting `components:` in kustomization.yaml, without editing the shipped file.
  // Kustomize takes relative paths only.
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-kustomize-'));
  const base = relative(dir, KUBERNETES_DIR);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${base}`,
      'components:',
      `  - ${join(base, 'components/podmonitor')}`,
      '',
    ].join('\n'),
  );
  const objects = render(kubectl, dir);
  const podMonitor = byKind(objects, 'PodMonitor');
  assert.deepEqual(schemaErrors(podMonitor), []);
  assert.equal(objects.length, 7);
});
