// The Kubernetes API schemas, offline: every kind the project ships, mapped to its model from `kubernetes-models`
// (the API's OpenAPI schemas compiled into validators) or, for the Prometheus Operator's PodMonitor, from
// `@kubernetes-models/prometheus-operator` (the CRD's schema). The 4.x lines: the 5.x ones need Node 22.
// These schemas catch wrong types, missing required fields and bad enum values. The API's OpenAPI schemas do not
// forbid unknown fields (the API server checks those apart), so a misspelled field passes here:
// kubernetes-manifests.test.ts checks the fields tokenmeter relies on by name.
// One module per kind: the group indexes would load every model of the group.
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/** A parsed manifest: what `kubectl apply` sends. */
export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

type Validator = (object: KubernetesObject) => void;

function validatorOf<T>(Model: new (data: T) => { validate(): void }): Validator {
  return (object) => new Model(object as unknown as T).validate();
}

const VALIDATORS: Readonly<Record<string, Validator>> = {
  'v1 ConfigMap': validatorOf(ConfigMap),
  'v1 Secret': validatorOf(Secret),
  'v1 Service': validatorOf(Service),
  'v1 PersistentVolumeClaim': validatorOf(PersistentVolumeClaim),
  'apps/v1 Deployment': validatorOf(Deployment),
  'policy/v1 PodDisruptionBudget': validatorOf(PodDisruptionBudget),
  'autoscaling/v2 HorizontalPodAutoscaler': validatorOf(HorizontalPodAutoscaler),
  'batch/v1 Job': validatorOf(Job),
  'monitoring.coreos.com/v1 PodMonitor': validatorOf(PodMonitor),
};

/** The schema's complaints about `object`, or [] when it is valid. A kind without a schema here is a complaint. */
export function schemaErrors(object: KubernetesObject): string[] {
  const key = `${object.apiVersion} ${object.kind}`;
  const validate = VALIDATORS[key];
  if (validate === undefined)
    return [`no schema for ${key}: add its model to test/deploy/helpers/kubernetes-schema.ts`];
  try {
    validate(object);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}
