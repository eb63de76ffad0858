// Summarises (and prints) a V8 CPU profile of the gateway child: where its CPU time goes, by package
// (node_modules), by workspace file (the gateway's own code, @pa/* packages, the generated Prisma client) and by
// function.
// Node's own internals (node:net, node:events, ...) are charged to the nearest caller that belongs to a
// package or the app, so that e.g. the socket writes of `pg` count as `pg`; what has no such caller (the event
// loop reading a socket) stays "node internals".
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, pct } from '../lib/report.ts';
import type { CpuProfile } from './server.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ProfileSummary {
  /** sampled time, ms, without (idle) */
  busyMs: number;
  /** share of busy time per category, after charging node internals to their callers */
  byCategory: { category: string; ms: number; share: number }[];
  /**
   * share of busy time with a frame of the category anywhere on the stack (inclusive; after an `await` the
   * stack starts at the resumed function, so this is the synchronous work done inside the category's code)
   */
  inclusive: { category: string; ms: number; share: number }[];
  /** self time of the hottest functions */
  topFunctions: { fn: string; where: string; category: string; ms: number; share: number }[];
}

export const BENCH = 'bench statement counter';

const SPECIAL: Record<string, string> = {
  '(garbage collector)': 'GC',
  '(program)': 'V8/native (program)',
  '(idle)': 'idle',
  '(root)': 'V8/native (program)',
};

export function categorise(url: string, functionName: string): { category: string; charged: boolean } {
  const special = SPECIAL[functionName];
  if (special && !url) return { category: special, charged: true };
  if (!url) return { category: 'native', charged: false };
  if (url.startsWith('node:')) return { category: 'node internals', charged: false };
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = file.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? '?');
    return { category: pkg, charged: true };
  }
  const rel = path.relative(REPO_ROOT, file);
  if (rel.includes('/generated/')) return { category: 'prisma generated client', charged: true };
  if (rel.startsWith('apps/agent-gateway/src/'))
    return { category: `gateway ${rel.slice('apps/agent-gateway/src/'.length)}`, charged: true };
  const ws = /^packages\/([^/]+)\//.exec(rel);
  if (ws) return { category: `@pa/${ws[1]}`, charged: true };
  // server.ts's statement counter wraps pg's client.query: its own cost (about 1 %) shows here
  if (rel.startsWith('bench/')) return { category: BENCH, charged: true };
  return { category: rel, charged: true };
}

export function summariseProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfMs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // a sample's weight: the time until the next sample (the last one gets the previous interval)
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    selfMs.set(samples[i]!, (selfMs.get(samples[i]!) ?? 0) + ms);
  }

  const chargedCategory = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const cached = chargedCategory.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const own = categorise(node.callFrame.url, node.callFrame.functionName);
    let result = own.category;
    if (!own.charged) {
      for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
        const pn = byId.get(p)!;
        const c = categorise(pn.callFrame.url, pn.callFrame.functionName);
        if (c.charged && !SPECIAL[pn.callFrame.functionName]) {
          result = c.category;
          break;
        }
      }
    }
    chargedCategory.set(id, result);
    return result;
  };

  const stackCategories = new Map<number, Set<string>>();
  const categoriesOnStack = (id: number): Set<string> => {
    const cached = stackCategories.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const p = parent.get(id);
    const set = new Set(p === undefined ? [] : categoriesOnStack(p));
    const own = categorise(node.callFrame.url, node.callFrame.functionName);
    if (own.charged && !SPECIAL[node.callFrame.functionName]) set.add(own.category);
    stackCategories.set(id, set);
    return set;
  };

  const cat = new Map<string, number>();
  const incl = new Map<string, number>();
  const fns = new Map<string, { fn: string; where: string; category: string; ms: number }>();
  let busy = 0;
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += ms;
    const c = categoryOf(id);
    cat.set(c, (cat.get(c) ?? 0) + ms);
    for (const k of categoriesOnStack(id)) incl.set(k, (incl.get(k) ?? 0) + ms);
    const url = node.callFrame.url;
    const short = url.startsWith('file://') ? path.relative(REPO_ROOT, fileURLToPath(url)) : url;
    const where = short ? `${short}:${node.callFrame.lineNumber + 1}` : '';
    const key = `${node.callFrame.functionName}@${where}`;
    const f = fns.get(key) ?? {
      fn: node.callFrame.functionName || '(anonymous)',
      where,
      category: categorise(url, node.callFrame.functionName).category,
      ms: 0,
    };
    f.ms += ms;
    fns.set(key, f);
  }
  const share = (ms: number) => (busy ? ms / busy : 0);
  return {
    busyMs: busy,
    byCategory: [...cat]
      .map(([category, ms]) => ({ category, ms, share: share(ms) }))
      .sort((a, b) => b.ms - a.ms),
    inclusive: [...incl]
      .filter(([category]) => category !== BENCH)
      .map(([category, ms]) => ({ category, ms, share: share(ms) }))
      .sort((a, b) => b.ms - a.ms),
    topFunctions: [...fns.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((f) => ({ ...f, share: share(f.ms) })),
  };
}

export function printProfile(p: ProfileSummary): void {
  console.log(`    where the gateway's CPU goes (V8 profile, ${fmt(p.busyMs, 0)} ms busy):`);
  for (const c of p.byCategory.slice(0, 14)) console.log(`      ${pct(c.share).padStart(5)}  ${c.category}`);
  console.log('    inclusive (a frame of it anywhere on the stack):');
  console.log(
    `      ${p.inclusive
      .slice(0, 12)
      .map((c) => `${c.category} ${pct(c.share)}`)
      .join(', ')}`,
  );
  console.log('    hottest functions (self time):');
  for (const f of p.topFunctions.slice(0, 12))
    console.log(`      ${pct(f.share).padStart(5)}  ${f.fn}  ${f.where}`);
}
