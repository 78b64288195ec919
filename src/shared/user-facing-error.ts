/**
 * A failure whose message is written for the user: what went wrong and what to do. The CLI prints the message
 * alone (no stack trace) and exits with status 1. `cause` keeps the underlying error for logs.
 */
export class UserFacingError extends Error {
  override readonly name = 'UserFacingError';
}
