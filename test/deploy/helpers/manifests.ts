// The shipped Kubernetes manifests as the tests read them: every YAML document under deploy/kubernetes, by file,
// and the kustomizations that tie them together.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoPath } from '../../observability/helpers/repo-paths.js';
import type { KubernetesObject } from './kubernetes-schema.js';

export const KUBERNETES_DIR = repoPath('deploy/kubernetes');

export interface ManifestFile {
  /** Path under deploy/kubernetes, for messages: `deployment.yaml`, `components/podmonitor/pod-monitor.yaml`. */
  readonly path: string;
  readonly documents: readonly Record<string, unknown>[];
}

/** Parses every document of a YAML file; a syntax error throws, naming the file. */
export function readYamlDocuments(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    if (document.errors.length > 0)
      throw new Error(`${file}: ${document.errors.map((e) => e.message).join('; ')}`);
    return document.toJS() as Record<string, unknown>;
  });
}

/** Every .yaml file under deploy/kubernetes, kustomizations included, sorted by path. */
export function manifestFiles(): ManifestFile[] {
  return readdirSync(KUBERNETES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort()
    .map((name) => ({ path: name, documents: readYamlDocuments(join(KUBERNETES_DIR, name)) }));
}

export function isKustomization(document: Record<string, unknown>): boolean {
  return document['apiVersion']?.toString().startsWith('kustomize.config.k8s.io/') === true;
}

/** The Kubernetes objects of all files (kustomizations left out), each with the file it came from. */
export function kubernetesObjects(
  files: readonly ManifestFile[],
): { path: string; object: KubernetesObject }[] {
  return files.flatMap((file) =>
    file.documents
      .filter((document) => !isKustomization(document))
      .map((document) => ({ path: file.path, object: document as unknown as KubernetesObject })),
  );
}

/** The one object of this kind and name; throws when there is not exactly one. */
export function theObject(
  objects: readonly { object: KubernetesObject }[],
  kind: string,
  name: string,
): KubernetesObject {
  const found = objects.filter((o) => o.object.kind === kind && o.object.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return (found[0] as { object: KubernetesObject }).object;
}
