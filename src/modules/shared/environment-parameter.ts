// `?environment=` of the reads that evaluate rules (browser rules, lint, export), declared once.
import { Type } from '@sinclair/typebox';

/** The environment a read evaluates in (decisions §20), as `?environment=` names it. */
export const EnvironmentParameter = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
  description:
    "The environment whose variables `{{NAME}}` in the rules take (default: the key's, else `default`); " +
    'one the workspace lacks is 404 Environment not found.',
  examples: ['staging'],
});
