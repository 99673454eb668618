// A variable body as the service takes it: its name, description and secret flag checked, and its
// values bounded and free of what could break a header or a line (CR, LF, other control characters).
// No problem message ever quotes a value: a secret's must not come back, even in an error.
import { AppError, type ErrorDetail, pointerToken } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { ENVIRONMENT_NAME_PATTERN, VARIABLE_NAME_PATTERN } from '../../model/environment-names.js';
import { checkVariableWrite, MAX_DESCRIPTION_CHARS } from './variables-schemas.js';

/** Values as written: a string sets one; null keeps the one set there already. */
export type WrittenValues = Record<string, string | null>;

export interface VariableWrite {
  name?: string;
  description?: string;
  secret?: boolean;
  values?: WrittenValues;
}

export interface VariableLimits {
  maxEnvironments: number;
  maxVariableValueChars: number;
}

const READ_ONLY = new Set(['version', 'creationDate', 'modificationDate']);

// Control characters but the tab: CR and LF would split a header or a line, the others have no
// business in a host, a path or a header either.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is refused
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

const invalid = (details: ErrorDetail[]) => new AppError('VARIABLE_PAYLOAD_INVALID', details);

/** The payload of a POST (`creating`: `name` needed) or PUT, or the error it deserves. */
export function readVariableWrite(body: unknown, creating: boolean, limits: VariableLimits): VariableWrite {
  const payload = readPayload(body, checkVariableWrite, 'VARIABLE_PAYLOAD_INVALID', READ_ONLY);
  const details: ErrorDetail[] = [];
  const { name, description, secret, values } = payload;
  if (name === undefined ? creating : !VARIABLE_NAME_PATTERN.test(name))
    details.push({
      path: '/name',
      message: 'must be a letter or "_", then up to 63 letters, digits or "_" (a rule names it as {{NAME}})',
    });
  if (description !== undefined && description.length > MAX_DESCRIPTION_CHARS)
    details.push({ path: '/description', message: `must be at most ${MAX_DESCRIPTION_CHARS} characters` });
  if (values !== undefined) {
    const entries = Object.entries(values);
    // Counted before any is looked at: a body of 100,000 environments is refused at once.
    if (entries.length > limits.maxEnvironments)
      details.push({
        path: '/values',
        message: `a workspace has at most ${limits.maxEnvironments} environments; this names ${entries.length}`,
      });
    else
      for (const [environment, value] of entries) {
        const path = `/values/${pointerToken(environment)}`;
        if (!ENVIRONMENT_NAME_PATTERN.test(environment))
          details.push({ path, message: 'is not an environment name' });
        else if (value === null) continue;
        else if (typeof value !== 'string')
          details.push({ path, message: 'must be a string (or null to keep the value set there)' });
        else if (value.length > limits.maxVariableValueChars)
          details.push({ path, message: `must be at most ${limits.maxVariableValueChars} characters` });
        else if (CONTROL.test(value))
          details.push({
            path,
            message: 'must not hold CR, LF or another control character (a tab is fine)',
          });
      }
  }
  if (details.length > 0) throw invalid(details);
  return {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    ...(secret === undefined ? {} : { secret }),
    ...(values === undefined ? {} : { values: values as WrittenValues }),
  };
}
