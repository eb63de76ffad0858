// The operator CLIs' output may go to a pipe whose reader stops early (`… --json | head -c 100`). Writing to it
// then fails with EPIPE, which Node emits as an 'error' event: unhandled, it prints a stack trace and exits 1.
// A closed pipe is the reader's choice, not a failure: the command ends quietly, as `cat` does.

/** True for the errors a write to a pipe closed by its reader gives (EPIPE, then writes to the ended stream). */
export function isClosedPipe(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/**
 * Makes a closed stdout/stderr harmless: from its first EPIPE on, the stream's write errors are dropped and
 * `onClosed` (once) lets the command stop what it is doing; the exit code is the command's own. Any other write
 * error is thrown, as without this.
 */
export function quietOnClosedPipe(
  onClosed: (stream: NodeJS.WriteStream) => void = () => undefined,
  streams: NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    let closed = false;
    stream.on('error', (err) => {
      if (!closed && !isClosedPipe(err)) throw err;
      if (closed) return;
      closed = true;
      onClosed(stream);
    });
  }
}
