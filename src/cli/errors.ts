/** CLI-level errors: both mean "usage or bad input" (exit code 2). */

/** A bad command line that commander itself does not catch (e.g. an unknown output extension). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A missing, unreadable or invalid job file; the message names the JSON path. */
export class JobError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'JobError';
  }
}
