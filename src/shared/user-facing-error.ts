// The two errors whose message is written for the user, each printed by the CLI alone, without a stack trace:
// a failure at run time (exit 1) and a mistake on the command line (exit 2).

/**
 * A failure whose message is written for the user: what went wrong and what to do. The CLI prints the message
 * alone (no stack trace) and exits with status 1. `cause` keeps the underlying error for logs.
 */
export class UserFacingError extends Error {
  override readonly name = 'UserFacingError';
}

/** A mistake on the command line: printed without a stack trace, and the process exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
