// A V8 CPU profile of a server under test, taken on the parent's request over IPC (bench/lib/child.ts `ask`):
// `{ type: 'profile-start' }` starts the sampling profiler, `{ type: 'profile-stop' }` stops it and answers with the
// profile. bench/gateway/server.ts has the same questions built in; this is the bridge server's (bench/bridge/
// server.ts), for bench/observability.ts to see where tracing and metrics spend a request's time.
import { Session } from 'node:inspector/promises';
import type { CpuProfile } from '../gateway/server.ts';

let session: Session | undefined;

/** The answer to a profile question, or undefined when `type` is not one. */
export async function answerProfileQuestion(
  type: string,
): Promise<{ type: 'profile'; profile: CpuProfile | null } | undefined> {
  if (type === 'profile-start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    // 200 µs, as the gateway's: fine enough for a request of a millisecond or two
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    return { type: 'profile', profile: null };
  }
  if (type === 'profile-stop') {
    const result = session ? await session.post('Profiler.stop') : undefined;
    session?.disconnect();
    session = undefined;
    return { type: 'profile', profile: (result?.profile as CpuProfile | undefined) ?? null };
  }
  return undefined;
}
