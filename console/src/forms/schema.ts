// The pair forms are drawn from the OpenAPI document the service serves (virtual:pair-schemas, taken
// from it by the build), so each rule type's form has every field of its pair schema, filters
// included, and a field added to the service appears in the console without a change here.
import schemas from 'virtual:pair-schemas';
import type { RuleType } from '../api.js';

/** The part of JSON Schema the pair schemas use. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  title?: string;
  description?: string;
  examples?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  $ref?: string;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
}

/** The ten rule types, in the document's order. */
export const RULE_TYPES = Object.keys(schemas).map((name) => name.replace(/PairInput$/, '') as RuleType);

/** The schema of one pair of a rule type, as POST and PUT accept it. */
export function pairSchema(ruleType: RuleType): JsonSchema {
  const schema = schemas[`${ruleType}PairInput`];
  if (!schema) throw new Error(`The OpenAPI document has no pair schema for ${ruleType}`);
  return schema;
}

/** What the type's pairs do, in the document's words. */
export function ruleTypeDescription(ruleType: RuleType): string {
  return pairSchema(ruleType).description ?? '';
}

/** The values a field may take, when it is a choice (the document writes enums as anyOf of consts). */
export function choices(schema: JsonSchema): string[] | undefined {
  if (schema.enum) return schema.enum.map(String);
  if (schema.anyOf?.every((option) => option.enum?.length === 1)) {
    return schema.anyOf.map((option) => String(option.enum?.[0]));
  }
  return undefined;
}

/** A new value for a schema: required properties filled, choices on their documented example. */
export function emptyValue(schema: JsonSchema): unknown {
  const options = choices(schema);
  if (options) {
    const example = schema.examples?.[0];
    return typeof example === 'string' && options.includes(example) ? example : options[0];
  }
  switch (schema.type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const name of schema.required ?? []) {
        const property = schema.properties?.[name];
        if (property) value[name] = emptyValue(property);
      }
      // A new source compares the whole URL, as Requestly's does (the document's example is a host).
      if (choices(schema.properties?.key ?? {})?.includes('Url') && 'operator' in value) value.key = 'Url';
      return value;
    }
    case 'array':
      return schema.items && (schema.minItems ?? 0) > 0 ? [emptyValue(schema.items)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return '';
  }
}

export { inSentence, labelFor } from './labels.js';
