// deploy/kubernetes, offline (no cluster): every manifest valid against the Kubernetes API schemas (the
// PodMonitor against the Prometheus Operator's), every kustomization listing files that exist, and the facts that
// must agree across files and with the code: the image's port and user, the config the gateway will load, the
// shutdown arithmetic, selectors, the shard count of the Indexed Job and the flags it passes to `bench`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { test } from 'node:test';
import { BENCH_OPTIONS } from '../../src/cli/bench-options.js';
import { resolveConfig } from '../../src/gateway/config/config-resolve.js';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { repoPath } from '../observability/helpers/repo-paths.js';
import { type KubernetesObject, schemaErrors } from './helpers/kubernetes-schema.js';
import {
  isKustomization,
  KUBERNETES_DIR,
  kubernetesObjects,
  manifestFiles,
  theObject,
} from './helpers/manifests.js';

// The fields these checks read, typed as far as they read them.
interface Container {
  readonly name: string;
  readonly image: string;
  readonly args?: readonly string[];
  readonly env?: readonly {
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string };
      fieldRef?: { fieldPath: string };
    };
  }[];
  readonly ports?: readonly { name?: string; containerPort: number }[];
  readonly livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readonly readinessProbe?: { httpGet?: { path: string; port: string | number } };
  readonly lifecycle?: { preStop?: { exec?: { command: readonly string[] } } };
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readonly securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: readonly string[] };
  };
  readonly volumeMounts?: readonly { name: string; mountPath: string }[];
}
interface PodSpec {
  readonly terminationGracePeriodSeconds?: number;
  readonly securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  readonly containers: readonly Container[];
  readonly volumes?: readonly {
    name: string;
    configMap?: { name: string };
    emptyDir?: object;
    persistentVolumeClaim?: { claimName: string };
  }[];
}
interface PodTemplate {
  readonly metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  readonly spec: PodSpec;
}

const files = manifestFiles();
const objects = kubernetesObjects(files);

function spec<T>(object: KubernetesObject): T {
  return object['spec'] as T;
}
function onlyContainer(pod: PodSpec): Container {
  assert.equal(pod.containers.length, 1);
  return pod.containers[0] as Container;
}
function envValue(container: Container, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}

const deployment = theObject(objects, 'Deployment', 'tokenmeter');
const deploymentSpec = spec<{ template: PodTemplate; selector: { matchLabels: Record<string, string> } }>(
  deployment,
);
const template = deploymentSpec.template;
const gateway = onlyContainer(template.spec);
const configMap = theObject(objects, 'ConfigMap', 'tokenmeter-config');
const gatewayConfigText = (configMap['data'] as Record<string, string>)['config.json'] ?? '';

test('every manifest is valid against its Kubernetes API schema (PodMonitor: the Operator CRD schema)', () => {
  const kinds = objects.map(({ path, object }) => `${path}: ${object.kind}`);
  // The list is the point: a manifest the reader missed would otherwise pass unchecked.
  assert.deepEqual(kinds, [
    'bench-job.yaml: Job',
    'bench-merge-job.yaml: Job',
    'bench-results-claim.yaml: PersistentVolumeClaim',
    'components/podmonitor/pod-monitor.yaml: PodMonitor',
    'deployment.yaml: Deployment',
    'gateway-config.yaml: ConfigMap',
    'horizontal-pod-autoscaler.yaml: HorizontalPodAutoscaler',
    'pod-disruption-budget.yaml: PodDisruptionBudget',
    'service.yaml: Service',
    'upstream-secret.yaml: Secret',
  ]);
  const errors = objects.flatMap(({ path, object }) => schemaErrors(object).map((e) => `${path}: ${e}`));
  assert.deepEqual(errors, []);
});

test('the schemas do reject a wrong manifest (the validators are not a no-op)', () => {
  const broken = structuredClone(deployment) as unknown as { spec: { replicas: unknown } };
  broken.spec.replicas = 'two';
  assert.match(schemaErrors(broken as unknown as KubernetesObject).join('\n'), /replicas must be integer/);
  const podMonitor = theObject(objects, 'PodMonitor', 'tokenmeter');
  const badMonitor = structuredClone(podMonitor) as unknown as { spec: { podMetricsEndpoints: unknown } };
  badMonitor.spec.podMetricsEndpoints = 'http';
  assert.notDeepEqual(schemaErrors(badMonitor as unknown as KubernetesObject), []);
});

test('every kustomization lists files that exist, and every gateway manifest is in the base or a component', () => {
  const listed = new Set<string>();
  for (const file of files) {
    for (const document of file.documents.filter(isKustomization)) {
      for (const field of ['resources', 'components']) {
        for (const entry of (document[field] as string[] | undefined) ?? []) {
          const path = posix.join(posix.dirname(file.path), entry);
          assert.ok(existsSync(join(KUBERNETES_DIR, path)), `${file.path} ${field}: ${entry} does not exist`);
          listed.add(path);
        }
      }
    }
  }
  const standalone = objects
    .map((o) => o.path)
    .filter((path) => !listed.has(path))
    .sort();
  // The bench files are applied one by one (docs/kubernetes.md); everything else must come with `apply -k`.
  assert.deepEqual(
    [...new Set(standalone)],
    ['bench-job.yaml', 'bench-merge-job.yaml', 'bench-results-claim.yaml'],
  );
});

test('the gateway container matches the image: its port, its user, its entry point', () => {
  const dockerfile = readFileSync(repoPath('Dockerfile'), 'utf8');
  const exposed = Number(/^EXPOSE (\d+)$/m.exec(dockerfile)?.[1]);
  assert.match(dockerfile, new RegExp(`TOKENMETER_PORT=${exposed}\\b`));
  assert.match(dockerfile, /^ENTRYPOINT \["node", "\/app\/bin\/tokenmeter\.js"\]$/m);
  assert.deepEqual(gateway.ports, [{ name: 'http', containerPort: exposed }]);
  assert.equal(template.metadata.annotations?.['prometheus.io/port'], String(exposed));
  assert.equal(template.metadata.annotations?.['prometheus.io/scrape'], 'true');
  assert.equal(template.metadata.annotations?.['prometheus.io/path'], '/metrics');
  // The image's USER is `node` (uid 1000 in the Node images): a name the kubelet cannot check, so a number here.
  assert.match(dockerfile, /^USER node$/m);
  assert.deepEqual(template.spec.securityContext?.runAsNonRoot, true);
  assert.equal(template.spec.securityContext?.runAsUser, 1000);
  assert.equal(gateway.args?.[0], 'serve');
  assert.equal(gateway.livenessProbe?.httpGet?.path, '/healthz');
  assert.equal(gateway.readinessProbe?.httpGet?.path, '/readyz');
  assert.ok(gateway.resources?.requests?.['cpu'] && gateway.resources.limits?.['memory']);
});

test('the root file system is read-only and the gateway writes only where a volume is mounted', () => {
  assert.equal(gateway.securityContext?.readOnlyRootFilesystem, true);
  assert.equal(gateway.securityContext?.allowPrivilegeEscalation, false);
  assert.deepEqual(gateway.securityContext?.capabilities?.drop, ['ALL']);
  const config = JSON.parse(gatewayConfigText) as { records?: { file?: string } };
  const recordsDir = dirname(config.records?.file ?? '');
  const mount = gateway.volumeMounts?.find((m) => m.mountPath === recordsDir);
  assert.ok(mount, `records file ${config.records?.file} is not on a mounted volume`);
  const volume = template.spec.volumes?.find((v) => v.name === mount.name);
  assert.ok(volume?.emptyDir !== undefined || volume?.persistentVolumeClaim !== undefined);
});

test('the ConfigMap holds a configuration the gateway loads, with its key from the Secret', async () => {
  const configIndex = gateway.args?.indexOf('--config') ?? -1;
  const configPath = gateway.args?.[configIndex + 1] ?? '';
  const mount = gateway.volumeMounts?.find((m) => m.mountPath === dirname(configPath));
  const volume = template.spec.volumes?.find((v) => v.name === mount?.name);
  assert.equal(volume?.configMap?.name, 'tokenmeter-config');
  assert.equal(configPath.split('/').at(-1), 'config.json');

  const input = validateConfig(JSON.parse(gatewayConfigText));
  const keyEnv = input.upstreams[0]?.keyEnv ?? '';
  const fromSecret = gateway.env?.find((e) => e.name === keyEnv)?.valueFrom?.secretKeyRef;
  const secret = theObject(objects, 'Secret', 'tokenmeter-upstream');
  assert.equal(fromSecret?.name, secret.metadata.name);
  assert.ok(fromSecret !== undefined && fromSecret.key in (secret['stringData'] as Record<string, string>));
  // With the key set, the configuration resolves as the gateway resolves it at start.
  const resolved = await resolveConfig(input, { [keyEnv]: 'sk-test' });
  assert.equal(resolved.upstreams.length, 1);
  // Left empty in the shipped Secret, the gateway refuses to start and names the variable.
  await assert.rejects(resolveConfig(input, { [keyEnv]: '' }), new RegExp(keyEnv));
});

test('terminationGracePeriodSeconds covers preStop + shutdownDelayMs + shutdownGraceMs, with room to exit', () => {
  const preStop = gateway.lifecycle?.preStop?.exec?.command ?? [];
  assert.equal(preStop[0], 'sleep');
  const preStopSeconds = Number(preStop[1]);
  const config = JSON.parse(gatewayConfigText) as { shutdownDelayMs: number; shutdownGraceMs: number };
  const needed = preStopSeconds + config.shutdownDelayMs / 1000 + config.shutdownGraceMs / 1000;
  const granted = template.spec.terminationGracePeriodSeconds ?? 30;
  // 5 s to write the records file and exit once the last response ended (docs/configuration.md "Shutdown").
  assert.ok(needed + 5 <= granted, `needs ${needed} s + 5 s to exit, gets ${granted} s`);
});

test('Service, PodDisruptionBudget, PodMonitor and HorizontalPodAutoscaler point at the gateway pods', () => {
  const podLabels = template.metadata.labels;
  const selects = (selector: Record<string, string>): boolean =>
    Object.entries(selector).every(([k, v]) => podLabels[k] === v);
  assert.ok(selects(deploymentSpec.selector.matchLabels));
  const service = spec<{ selector: Record<string, string>; ports: { targetPort: string }[] }>(
    theObject(objects, 'Service', 'tokenmeter'),
  );
  assert.ok(selects(service.selector));
  assert.equal(service.ports[0]?.targetPort, 'http');
  const pdb = spec<{ selector: { matchLabels: Record<string, string> } }>(
    theObject(objects, 'PodDisruptionBudget', 'tokenmeter'),
  );
  assert.ok(selects(pdb.selector.matchLabels));
  const podMonitor = spec<{
    selector: { matchLabels: Record<string, string> };
    podMetricsEndpoints: { port: string; path: string }[];
  }>(theObject(objects, 'PodMonitor', 'tokenmeter'));
  assert.ok(selects(podMonitor.selector.matchLabels));
  assert.deepEqual(
    podMonitor.podMetricsEndpoints.map((e) => [e.port, e.path]),
    [['http', '/metrics']],
  );
  const hpa = spec<{ scaleTargetRef: { kind: string; name: string } }>(
    theObject(objects, 'HorizontalPodAutoscaler', 'tokenmeter'),
  );
  assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'tokenmeter' });
});

test('the bench Job is Indexed, N shards everywhere, its flags are bench flags, merge reads its volume', () => {
  const job = spec<{
    completionMode: string;
    completions: number;
    parallelism: number;
    template: PodTemplate;
  }>(theObject(objects, 'Job', 'tokenmeter-bench'));
  assert.equal(job.completionMode, 'Indexed');
  const bench = onlyContainer(job.template.spec);
  assert.equal(job.parallelism, job.completions);
  assert.equal(Number(envValue(bench, 'SHARD_COUNT')), job.completions);
  assert.equal(
    bench.env?.find((e) => e.name === 'SHARD_INDEX')?.valueFrom?.fieldRef?.fieldPath,
    "metadata.annotations['batch.kubernetes.io/job-completion-index']",
  );
  const args = bench.args ?? [];
  assert.equal(args[0], 'bench');
  assert.ok(args.includes('--shard-count=$(SHARD_COUNT)'));
  assert.ok(args.includes('--start-at=$(START_AT)'));
  // Every other flag is one `bench` has now; --shard-count and --start-at come with the shard work of issue 11.
  const known = new Set(BENCH_OPTIONS.map((o) => o.name));
  const unknown = args
    .slice(1)
    .map((a) => /^--([a-z-]+)/.exec(a)?.[1] ?? a)
    .filter((name) => !known.has(name));
  assert.deepEqual(
    unknown.filter((n) => n !== 'shard-count' && n !== 'start-at'),
    [],
  );
  // Each shard writes its own files: the index is in both names.
  assert.ok(args.some((a) => a.startsWith('--records-file=') && a.includes('$(SHARD_INDEX)')));
  assert.ok(args.some((a) => a.startsWith('--result-filename=') && a.includes('$(SHARD_INDEX)')));

  const claim = theObject(objects, 'PersistentVolumeClaim', 'tokenmeter-bench-results');
  assert.deepEqual(spec<{ accessModes: string[] }>(claim).accessModes, ['ReadWriteMany']);
  const merge = spec<{ template: PodTemplate }>(theObject(objects, 'Job', 'tokenmeter-bench-merge'));
  const mergeContainer = onlyContainer(merge.template.spec);
  assert.deepEqual(mergeContainer.args, ['merge', '/results/$(RUN_NAME)']);
  assert.equal(envValue(mergeContainer, 'RUN_NAME'), envValue(bench, 'RUN_NAME'));
  for (const pod of [job.template.spec, merge.template.spec]) {
    assert.deepEqual(
      pod.volumes?.map((v) => v.persistentVolumeClaim?.claimName),
      [claim.metadata.name],
    );
    assert.equal(onlyContainer(pod).securityContext?.readOnlyRootFilesystem, true);
    assert.equal(onlyContainer(pod).volumeMounts?.[0]?.mountPath, '/results');
  }
  assert.ok(args.some((a) => a.startsWith('--result-dir=/results/')));
  // The same image as the gateway's, which kustomization.yaml sets (these files are applied without it).
  const kustomization = files.find((f) => f.path === 'kustomization.yaml')?.documents[0];
  const [image] = (kustomization?.['images'] ?? []) as { newName: string; newTag: string }[];
  assert.equal(bench.image, `${image?.newName}:${image?.newTag}`);
  assert.equal(mergeContainer.image, bench.image);
});
