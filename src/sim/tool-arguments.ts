// Arguments for a tool call the simulator makes up: a value for every required field of the tool's JSON schema,
// and nothing else, each as harmless as its type allows (false, the smallest number allowed, a few plain words,
// the first enum value), so an agent that runs the call does little. Bounded: nesting stops at MAX_DEPTH (a
// recursive $ref ends there with null) and arrays get their minimum items (one when no minimum is given).
import { isJsonObject, type JsonObject } from '../shared/json-object.js';
import type { SeededRandom } from '../shared/random.js';
import { vocabularyWord } from './answer-text.js';

const MAX_DEPTH = 8;
const MAX_ITEMS = 4;

/** Strings of these formats get a fixed valid value instead of words. */
const FORMAT_VALUES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'sim@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** A value satisfying `schema`'s type and the required fields of every object in it. */
export function argumentsFor(schema: unknown, random: SeededRandom): unknown {
  return schemaValue(schema, schema, random, 0);
}

/** `#/$defs/x` and `#/definitions/x` (JSON pointers into the root schema); undefined for anything else. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s !== '')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = isJsonObject(node) ? node[key] : undefined;
  }
  return node;
}

/** allOf's branches merged into one schema: their properties together, their required fields together. */
function mergeAllOf(schema: JsonObject, root: unknown): JsonObject {
  const branches = (schema['allOf'] as unknown[]).map((b) =>
    isJsonObject(b) && typeof b['$ref'] === 'string' ? resolveRef(root, b['$ref']) : b,
  );
  const merged: Record<string, unknown> = { ...schema, allOf: undefined };
  const properties: Record<string, unknown> = isJsonObject(schema['properties'])
    ? { ...schema['properties'] }
    : {};
  const required = new Set<unknown>(Array.isArray(schema['required']) ? schema['required'] : []);
  for (const branch of branches) {
    if (!isJsonObject(branch)) continue;
    for (const [key, value] of Object.entries(branch)) {
      if (key !== 'properties' && key !== 'required' && !(key in merged && merged[key] !== undefined))
        merged[key] = value;
    }
    if (isJsonObject(branch['properties'])) Object.assign(properties, branch['properties']);
    if (Array.isArray(branch['required'])) for (const name of branch['required']) required.add(name);
  }
  return { ...merged, properties, required: [...required] };
}

function typeOf(schema: JsonObject): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? 'null') as string;
  if ('properties' in schema || 'required' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  return 'string';
}

function schemaValue(schema: unknown, root: unknown, random: SeededRandom, depth: number): unknown {
  if (!isJsonObject(schema) || depth > MAX_DEPTH) return null;
  if ('const' in schema) return schema['const'];
  const choices = schema['enum'];
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  if (typeof schema['$ref'] === 'string') {
    return schemaValue(resolveRef(root, schema['$ref']), root, random, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const branch = branches.find((b) => !(isJsonObject(b) && b['type'] === 'null')) ?? branches[0];
      return schemaValue(branch, root, random, depth + 1);
    }
  }
  if (Array.isArray(schema['allOf'])) return schemaValue(mergeAllOf(schema, root), root, random, depth + 1);
  switch (typeOf(schema)) {
    case 'object':
      return objectOf(schema, root, random, depth);
    case 'array':
      return arrayOf(schema, root, random, depth);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return stringOf(schema, random);
  }
}

function objectOf(schema: JsonObject, root: unknown, random: SeededRandom, depth: number): object {
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const value: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== 'string' || name in value) continue;
    value[name] = schemaValue(properties[name] ?? {}, root, random, depth + 1);
  }
  return value;
}

function arrayOf(schema: JsonObject, root: unknown, random: SeededRandom, depth: number): unknown[] {
  const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 1;
  const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : MAX_ITEMS;
  const count = Math.max(0, Math.min(min, max, MAX_ITEMS));
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : [];
  const items: unknown[] = [];
  for (let i = 0; i < count; i++)
    items.push(schemaValue(prefix[i] ?? schema['items'] ?? {}, root, random, depth + 1));
  return items;
}

function numberOf(schema: JsonObject, integer: boolean): number {
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  const exclusiveMin = num('exclusiveMinimum');
  let value = num('minimum') ?? (exclusiveMin === undefined ? 1 : exclusiveMin + (integer ? 1 : 0.5));
  const step = num('multipleOf');
  if (step !== undefined && step > 0) value = Math.ceil(value / step) * step;
  if (integer) value = Math.ceil(value);
  const max = num('maximum');
  return max !== undefined && value > max ? max : value;
}

function stringOf(schema: JsonObject, random: SeededRandom): string {
  const format = typeof schema['format'] === 'string' ? FORMAT_VALUES[schema['format']] : undefined;
  if (format !== undefined) return format;
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Number.POSITIVE_INFINITY;
  const words = [vocabularyWord(random), vocabularyWord(random)];
  while (words.join(' ').length < min) words.push(vocabularyWord(random));
  return words.join(' ').slice(0, Math.max(max, 0));
}
