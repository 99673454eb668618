// Reading the records of an import file: each one converted, normalised and checked as POST would.
import { AppError, type ErrorDetail } from '../../errors.js';
import { isPlainObject } from '../../http/payload.js';
import type { GroupWrite } from '../../model/group.js';
import type { PathMap } from '../../model/path-map.js';
import { droppedFieldsWarning } from '../../model/requestly-fields.js';
import { convertOlderFormats } from '../../model/requestly-older-formats.js';
import type { RuleWrite } from '../../model/rule.js';
import { readGroupWrite } from '../groups/groups-input.js';
import { readRule } from '../rules/rules-input.js';

interface RecordBase {
  /** Position in the file, from 0. */
  index: number;
  name: string | null;
  sourceId: string | null;
  warnings: string[];
  /** The record's own creationDate, kept so an imported list keeps its order. */
  creationDate: number | undefined;
}

export type ReadRecord =
  | (RecordBase & { kind: 'group'; write: GroupWrite })
  | (RecordBase & { kind: 'rule'; write: RuleWrite; pairs: Record<string, unknown>[] })
  | (RecordBase & {
      kind: 'failed';
      objectType: 'rule' | 'group' | null;
      message: string;
      details: ErrorDetail[];
    });

export type FailedRecord = Extract<ReadRecord, { kind: 'failed' }>;

/** A record with everything POST /v1/rules or /v1/groups would check, and the older formats converted. */
export function readRecord(value: unknown, index: number, maxDelayMs: number): ReadRecord {
  const at = `/${index}`;
  const base = {
    index,
    name: isPlainObject(value) && typeof value.name === 'string' ? value.name : null,
    sourceId: isPlainObject(value) && typeof value.id === 'string' ? value.id : null,
    warnings: [],
    creationDate: isPlainObject(value) ? timestamp(value.creationDate) : undefined,
  };
  const objectType = isPlainObject(value) ? recordKind(value) : null;
  if (!isPlainObject(value) || objectType === null) {
    const path = isPlainObject(value) ? `${at}/objectType` : at;
    const message =
      'not a Requestly record: objectType must be "rule" or "group" (or left out with a ruleType)';
    return {
      ...base,
      kind: 'failed',
      objectType,
      message: 'Not a rule or group record',
      details: [{ path, message }],
    };
  }
  const dropped = droppedFieldsWarning(value, objectType);
  if (objectType === 'group') {
    const warnings = dropped === null ? [] : [dropped];
    try {
      return { ...base, warnings, kind: 'group', write: readGroupWrite(value, true) };
    } catch (error) {
      return failed({ ...base, warnings }, 'group', error, at);
    }
  }
  const converted = convertOlderFormats(value);
  const warnings = dropped === null ? converted.warnings : [...converted.warnings, dropped];
  try {
    const { write, pairs = [] } = readRule(converted.record, { creating: true, maxDelayMs });
    return { ...base, warnings, kind: 'rule', write, pairs };
  } catch (error) {
    return failed({ ...base, warnings }, 'rule', error, at, converted.paths);
  }
}

/** What a record is, from its objectType (or ruleType); null when it is neither. */
export function recordKind(record: Record<string, unknown>): 'rule' | 'group' | null {
  if (record.objectType === 'rule' || record.objectType === 'group') return record.objectType;
  return record.objectType === undefined && Object.hasOwn(record, 'ruleType') ? 'rule' : null;
}

function timestamp(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** The error a record got, its paths made pointers into the file. */
function failed(
  base: RecordBase,
  objectType: 'rule' | 'group',
  error: unknown,
  at: string,
  paths?: PathMap,
): FailedRecord {
  if (!(error instanceof AppError)) throw error;
  const details = (error.details ?? [{ path: '', message: error.message }]).map((detail) => ({
    ...detail,
    path: at + (paths ? paths.toSent(detail.path) : detail.path),
  }));
  return { ...base, kind: 'failed', objectType, message: error.message, details };
}
