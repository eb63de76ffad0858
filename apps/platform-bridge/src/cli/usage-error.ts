/** The command line is wrong (exit 2), as opposed to a command that failed (exit 1). */
export class UsageError extends Error {}
