import { quietOnClosedPipe } from '@pa/http-kit/closed-pipe';
import { runCli } from './run-cli.ts';

// `npm run platform -- <command>`: the operator CLI (docs/operations.md, "The platform CLI").
// Output piped into a reader that stops early (`… --json | head -c 100`) is no failure: no stack trace, and the
// command still finishes (and closes its database) with its own exit code.
quietOnClosedPipe();
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
process.exitCode = code;
// The database is closed by now; should any handle still hold the event loop, it must not keep an
// operator's shell (or a script) waiting. Unreferenced, so a clean run exits as soon as output is flushed.
setTimeout(() => process.exit(code), 2_000).unref();
