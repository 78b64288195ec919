/** A mistake on the command line: printed without a stack trace, and the process exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
