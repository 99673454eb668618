// The one error table: every error the API can answer, by stable code, with its status and message.

export const errorTable = {
  RULE_PAYLOAD_INVALID: { status: 400, message: 'Rule Payload is invalid' },
  RULE_PAIRS_INVALID: { status: 400, message: 'Rule pairs are invalid' },
  RULE_TYPE_UPDATE_NOT_ALLOWED: { status: 400, message: 'Rule Type update not allowed' },
  GROUP_PAYLOAD_INVALID: { status: 400, message: 'Invalid Group Payload' },
  GROUP_NAME_REQUIRED: { status: 400, message: 'Group Name Required' },
  INVALID_GROUP_ID: { status: 400, message: 'Invalid Group Id' },
  INVALID_QUERY: { status: 400, message: 'Invalid query' },
  INVALID_TRACE_REQUEST: { status: 400, message: 'Invalid trace request' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, message: 'Invalid Idempotency-Key' },
  IMPORT_INVALID: { status: 400, message: 'Import is invalid' },
  MEMBER_PAYLOAD_INVALID: { status: 400, message: 'Invalid member payload' },
  USER_PAYLOAD_INVALID: { status: 400, message: 'Invalid user payload' },
  SIGN_IN_PAYLOAD_INVALID: { status: 400, message: 'Invalid sign-in payload' },
  KEY_PAYLOAD_INVALID: { status: 400, message: 'Invalid key payload' },
  INVITE_PAYLOAD_INVALID: { status: 400, message: 'Invalid invite payload' },
  PASSWORD_RESET_PAYLOAD_INVALID: { status: 400, message: 'Invalid password reset payload' },
  TEST_SUITE_PAYLOAD_INVALID: { status: 400, message: 'Invalid test suite payload' },
  HITS_PAYLOAD_INVALID: { status: 400, message: 'Invalid hits report' },
  WEBHOOK_PAYLOAD_INVALID: { status: 400, message: 'Invalid webhook payload' },
  MALFORMED_REQUEST: { status: 400, message: 'Malformed request' },
  SETTINGS_PAYLOAD_INVALID: { status: 400, message: 'Invalid settings payload' },
  CHANGE_REQUEST_PAYLOAD_INVALID: { status: 400, message: 'Invalid change request payload' },
  ENVIRONMENT_PAYLOAD_INVALID: { status: 400, message: 'Invalid environment payload' },
  VARIABLE_PAYLOAD_INVALID: { status: 400, message: 'Invalid variable payload' },
  API_KEY_REQUIRED: { status: 401, message: 'API key required' },
  API_KEY_INVALID: { status: 401, message: 'Invalid API key' },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid credentials' },
  SESSION_INVALID: { status: 401, message: 'Session ended or expired' },
  SESSION_REQUIRED: { status: 401, message: 'Sign-in required' },
  UNAUTHORIZED_ACTION: { status: 403, message: 'Unauthorized action' },
  CSRF_REFUSED: { status: 403, message: 'Cross-site request refused' },
  RULE_NOT_FOUND: { status: 404, message: 'Rule not found' },
  GROUP_NOT_FOUND: { status: 404, message: 'Group not found' },
  VERSION_NOT_FOUND: { status: 404, message: 'Version not found' },
  MEMBER_NOT_FOUND: { status: 404, message: 'Member not found' },
  KEY_NOT_FOUND: { status: 404, message: 'Key not found' },
  INVITE_NOT_FOUND: { status: 404, message: 'Invite not found' },
  TEST_SUITE_NOT_FOUND: { status: 404, message: 'Test suite not found' },
  CHANGE_REQUEST_NOT_FOUND: { status: 404, message: 'Change request not found' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook not found' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  ENVIRONMENT_NOT_FOUND: { status: 404, message: 'Environment not found' },
  VARIABLE_NOT_FOUND: { status: 404, message: 'Variable not found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Route not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'Idempotency key reused with a different request' },
  RESTORE_CONFLICT: { status: 409, message: 'Id taken by another object' },
  MEMBER_EXISTS: { status: 409, message: 'Already a member' },
  USER_EXISTS: { status: 409, message: 'User already exists' },
  LAST_OWNER: { status: 409, message: 'A workspace keeps at least one owner' },
  USER_CANNOT_SIGN_IN: { status: 409, message: 'User cannot sign in' },
  TEST_SUITE_EXISTS: { status: 409, message: 'Test suite name taken' },
  TEST_SUITES_FULL: { status: 409, message: 'Too many test suites' },
  REVIEW_REQUIRED: { status: 409, message: 'Review required' },
  CHANGE_REQUEST_STATE: { status: 409, message: "Not allowed in the change request's state" },
  CHANGE_REQUEST_CONFLICT: { status: 409, message: 'Changed since the change request was made' },
  WEBHOOK_LIMIT: { status: 409, message: 'Webhook limit reached' },
  ENVIRONMENT_EXISTS: { status: 409, message: 'Environment name taken' },
  ENVIRONMENTS_FULL: { status: 409, message: 'Too many environments' },
  ENVIRONMENT_IN_USE: { status: 409, message: 'Environment in use' },
  VARIABLE_EXISTS: { status: 409, message: 'Variable name taken' },
  VARIABLES_FULL: { status: 409, message: 'Too many variables' },
  CHANGES_EXPIRED: { status: 410, message: 'Changes no longer kept' },
  LINK_INVALID: { status: 410, message: 'Link expired or already used' },
  PRECONDITION_FAILED: { status: 412, message: 'Precondition failed' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  SIGN_IN_LIMITED: { status: 429, message: 'Too many failed sign-ins' },
  TOO_MANY_STREAMS: { status: 429, message: 'Too many open streams' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  UNAVAILABLE: { status: 503, message: 'Service unavailable' },
  TIME_LIMIT_EXCEEDED: { status: 503, message: 'Time limit exceeded' },
  STREAMS_FULL: { status: 503, message: 'Too many streams on this instance' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorTable;

/** One problem in a request: `path` is a JSON Pointer into the request body (or query), `message` says what is wrong. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly details?: ErrorDetail[],
    /** Seconds the caller should wait before trying again (Retry-After), where the refusal knows. */
    readonly retryAfterSeconds?: number,
  ) {
    super(errorTable[code].message);
    this.name = 'AppError';
    this.status = errorTable[code].status;
  }
}

/** Escapes one JSON Pointer reference token (RFC 6901). */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}
