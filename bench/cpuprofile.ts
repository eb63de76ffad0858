// Summarises a V8 CPU profile (`node --cpu-prof`) of the server under load: self time by component (Prisma,
// pg, Express, helmet, pino, app code, node core, GC...) and, inside Prisma's minified runtime, by original
// source file (through the runtime's source map).
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface CpuBreakdown {
  /** profiled wall time and busy (non-idle) CPU time, ms */
  wallMs: number;
  busyMs: number;
  components: Array<{ name: string; ms: number; share: number }>;
  prismaSources: Array<{ name: string; ms: number; share: number }>;
}

const COMPONENTS: Array<[RegExp, string]> = [
  [/^wasm:/, 'Prisma query compiler (wasm)'],
  [/node_modules\/@prisma\/client\//, 'Prisma client runtime'],
  [/node_modules\/@prisma\/adapter-pg\//, 'Prisma pg adapter'],
  [/node_modules\/(@prisma|prisma)\//, 'Prisma (other)'],
  [/node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-[a-z]+|pgpass)\//, 'pg driver'],
  [/node_modules\/helmet\//, 'helmet'],
  [/node_modules\/express-rate-limit\//, 'express-rate-limit'],
  [/node_modules\/(pino|sonic-boom|fast-redact|pino-std-serializers|thread-stream|@pinojs)/, 'pino logging'],
  [/node_modules\/zod\//, 'zod'],
  [
    /node_modules\/(express|router|body-parser|finalhandler|send|qs|path-to-regexp|on-finished|type-is|accepts|negotiator|mime-types|content-type|proxy-addr|debug|depd|http-errors|statuses|parseurl|fresh|etag|vary|encodeurl)\//,
    'Express & deps',
  ],
  [/node_modules\//, 'other node_modules'],
  [/\/apps\/platform-bridge\/src\//, 'app code'],
  [/\/packages\/http-kit\//, 'http-kit'],
  [/\/packages\//, 'other packages'],
  [/\/bench\//, 'bench harness'],
  [/^node:internal\/modules|tsx|esbuild/, 'module loading (startup)'],
  [/^node:/, 'node core (http, streams, buffers)'],
];

function component(frame: ProfileNode['callFrame']): string {
  if (!frame.url) {
    if (frame.functionName === '(garbage collector)') return 'garbage collector';
    if (frame.functionName === '(idle)') return '(idle)';
    if (frame.functionName === '(program)') return 'V8 / native (program)';
    return 'native built-ins (writev, buffer, JSON...)';
  }
  for (const [re, name] of COMPONENTS) if (re.test(frame.url)) return name;
  return 'other';
}

function loadSourceMap(url: string, cache: Map<string, SourceMap | null>): SourceMap | null {
  if (!cache.has(url)) {
    let map: SourceMap | null = null;
    try {
      const file = `${url.startsWith('file:') ? fileURLToPath(url) : url}.map`;
      if (existsSync(file)) map = new SourceMap(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      map = null;
    }
    cache.set(url, map);
  }
  return cache.get(url) ?? null;
}

export function summariseCpuProfile(file: string): CpuBreakdown {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const byComponent = new Map<string, number>();
  const byPrismaSource = new Map<string, number>();
  const maps = new Map<string, SourceMap | null>();
  let wallUs = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us) continue;
    wallUs += us;
    const name = component(node.callFrame);
    byComponent.set(name, (byComponent.get(name) ?? 0) + us);
    if (name === 'Prisma client runtime') {
      const map = loadSourceMap(node.callFrame.url, maps);
      const entry = map?.findEntry(node.callFrame.lineNumber, node.callFrame.columnNumber);
      const source =
        entry && 'originalSource' in entry
          ? entry.originalSource.replace(/^.*?\/(src|dist)\//, '').replace(/^(\.\.\/)+/, '')
          : '(unmapped)';
      byPrismaSource.set(source, (byPrismaSource.get(source) ?? 0) + us);
    }
  }
  const busyUs = wallUs - (byComponent.get('(idle)') ?? 0);
  const rows = (m: Map<string, number>) =>
    [...m]
      .filter(([name]) => name !== '(idle)')
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / busyUs }))
      .sort((a, b) => b.ms - a.ms);
  return {
    wallMs: wallUs / 1000,
    busyMs: busyUs / 1000,
    components: rows(byComponent),
    prismaSources: rows(byPrismaSource),
  };
}
