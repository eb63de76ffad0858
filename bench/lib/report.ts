// The harness both benchmarks (bench/bridge/run.ts, bench/gateway/run.ts) report through: timestamped
// progress lines, timed phases, and targets each printed with its figures and a PASS/FAIL verdict, then listed
// together at the end and written with the rest of the results as JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
export const pct = (v: number) => `${fmt(v * 100, 0)} %`;
export const round = (v: number, digits = 3) =>
  Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : v;
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

/** Every number in a JSON-like value rounded to `digits` decimals. */
export const roundAll = (v: unknown, digits = 3): unknown =>
  typeof v === 'number'
    ? round(v, digits)
    : Array.isArray(v)
      ? v.map((x) => roundAll(x, digits))
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, roundAll(x, digits)]))
        : v;

export interface TargetResult {
  /** what is promised, e.g. "POST /api/chat peak ≥ 50 % of its bare baseline" */
  target: string;
  /** the figures it was judged on */
  measured: string;
  pass: boolean;
}

export function createReport(name: string) {
  const targets: TargetResult[] = [];
  const phases: Record<string, number> = {};
  const log = (msg: string) => console.log(`[${name} ${new Date().toISOString().slice(11, 19)}] ${msg}`);
  return {
    log,
    /** Runs one phase of the benchmark, logging its start and recording how long it took. */
    async phase<T>(title: string, run: () => Promise<T>): Promise<T> {
      log(title);
      const started = performance.now();
      try {
        return await run();
      } finally {
        phases[title] = round((performance.now() - started) / 1000, 1);
      }
    },
    /** Records a target and prints its verdict line at once. */
    target(target: string, measured: string, pass: boolean): boolean {
      targets.push({ target, measured, pass });
      console.log(`  ${verdict(pass)}  ${target}: ${measured}`);
      return pass;
    },
    /** The verdicts again, together, for the end of the report. */
    printTargets(note = ''): void {
      console.log(`\nTargets${note ? ` (${note})` : ''}:`);
      for (const t of targets) console.log(`  ${verdict(t.pass)}  ${t.target}: ${t.measured}`);
    },
    /**
     * Writes the results, with the targets and phase times, as JSON (numbers to 3 decimals); returns the file's
     * path.
     */
    write(file: string, results: Record<string, unknown>): string {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(
        file,
        `${JSON.stringify(roundAll({ ...results, targets, phases_s: phases }), null, 2)}\n`,
      );
      return file;
    },
  };
}
export type Report = ReturnType<typeof createReport>;
