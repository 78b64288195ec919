// Tools for the agent tests: function tools whose argument schemas use what tools' schemas use (required and
// optional fields, enums, bounds, arrays, nested objects, $ref), in each protocol's spelling, and a JSON Schema
// validator (ajv) to check the simulator's arguments against them.
import { Ajv } from 'ajv';

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 12 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 2, maximum: 7 },
    ratio: { type: 'number', exclusiveMinimum: 0 },
    detailed: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
    when: { type: 'string', format: 'date-time' },
    place: { $ref: '#/$defs/place' },
    note: { type: ['string', 'null'] },
    optional: { type: 'string' },
  },
  required: ['city', 'unit', 'days', 'ratio', 'detailed', 'tags', 'when', 'place', 'note'],
  additionalProperties: false,
  $defs: {
    place: {
      type: 'object',
      properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, label: { type: 'string' } },
      required: ['lat'],
      additionalProperties: false,
    },
  },
} as const;

export const READ_SCHEMA = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
} as const;

export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly schema: object;
}

export const TOOLS: readonly Tool[] = [
  { name: 'get_weather', description: 'The weather in a city', schema: WEATHER_SCHEMA },
  { name: 'read_file', description: 'Reads a file', schema: READ_SCHEMA },
];

export function chatTools(tools: readonly Tool[] = TOOLS) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.schema as Record<string, unknown> },
  }));
}

export function responsesTools(tools: readonly Tool[] = TOOLS) {
  return tools.map((t) => ({
    type: 'function' as const,
    name: t.name,
    description: t.description,
    parameters: t.schema as Record<string, unknown>,
    strict: false,
  }));
}

export function anthropicTools(tools: readonly Tool[] = TOOLS) {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.schema as { type: 'object'; [key: string]: unknown },
  }));
}

const ajv = new Ajv({ strict: false, allErrors: true });
for (const format of ['date-time']) ajv.addFormat(format, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

/** The validator's errors for `value` against the named tool's schema ('' when valid). */
export function schemaErrors(toolName: string, value: unknown): string {
  const tool = TOOLS.find((t) => t.name === toolName);
  if (tool === undefined) return `no tool ${toolName}`;
  return ajv.validate(tool.schema, value) ? '' : ajv.errorsText(ajv.errors);
}
