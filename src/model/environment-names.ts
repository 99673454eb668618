// The names of environments and variables (decisions §20), below every floor: the API checks them,
// the engine finds `{{NAME}}` by them, runtimes and the CLI take an environment by name.

/** An environment's name: unique in its workspace, compared exactly (case-sensitive). */
export const ENVIRONMENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A variable's name, as `{{NAME}}` names it in a rule. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Every workspace's environment, which cannot be deleted: the one used when none is named. */
export const DEFAULT_ENVIRONMENT = 'default';
