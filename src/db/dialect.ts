// The few places where SQLite and PostgreSQL differ: how their drivers report errors.

/** A unique or primary-key constraint rejected the write (used to retry a generated id). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** A foreign key rejected the write: the referenced row is gone (a group deleted meanwhile). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

/** The database cannot be reached or is too busy to answer in time. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'SQLITE_BUSY', 'SQLITE_IOERR'].includes(
      code,
    ) ||
    code.startsWith('08') || // PostgreSQL connection exceptions
    code === '57P01' || // admin shutdown
    code === '57014' || // statement timeout
    /timeout exceeded when trying to connect|Connection terminated/.test(message)
  );
}
