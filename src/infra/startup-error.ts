/**
 * A start that cannot go on for a reason the operator can fix (a port in use,
 * a data directory another process serves): the message says what and how,
 * and the process prints it alone, without a stack trace, and exits non-zero.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
