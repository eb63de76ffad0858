import type { ImportGraph } from './import-graph.ts';

// The checks `npm run lint` runs on the import graph (import-graph.ts): import cycles, folders that must not
// reach into features, and feature folders importing each other.

/**
 * The import cycles: for every import that lies on a cycle, the shortest cycle through it, as the list of files
 * from one back to itself (`[a, b, a]`). Each cycle is listed once, starting at its first file by name, so the
 * list names every import that would have to go for the graph to have no cycle, without listing the (possibly
 * exponentially many) longer cycles those imports also close.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    for (const from of [...component].sort()) {
      for (const to of [...(graph.get(from) ?? [])].sort()) {
        if (!members.has(to)) continue;
        const back = shortestPath(graph, members, to, from);
        if (!back) continue;
        const cycle = canonical([from, ...back]);
        cycles.set(cycle.join('\n'), cycle);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

/** A cycle `[a, ..., a]` rotated to start (and end) at its first file by name. */
function canonical(closed: string[]): string[] {
  const ring = closed.slice(0, -1);
  const first = ring.indexOf([...ring].sort()[0]!);
  const rotated = [...ring.slice(first), ...ring.slice(0, first)];
  return [...rotated, rotated[0]!];
}

/** The shortest path from `start` to `goal` (both included) through `within`, breadth first. */
function shortestPath(graph: ImportGraph, within: Set<string>, start: string, goal: string): string[] | null {
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    if (node === goal) {
      const path = [node];
      for (let p = previous.get(node); p; p = previous.get(p)) path.unshift(p);
      return path;
    }
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (within.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return null;
}

/** The strongly connected components that hold a cycle (Tarjan's algorithm, without recursion). */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: string[] }> = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: [...(graph.get(node) ?? [])] });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const child = frame.next.shift();
      if (child !== undefined) {
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfImport = component.length === 1 && graph.get(frame.node)?.has(frame.node);
      if (component.length > 1 || selfImport) components.push(component);
    }
  }
  return components;
}

/** An import that crosses a boundary the code keeps. */
export interface ImportViolation {
  from: string;
  to: string;
}

const FEATURE_FILE = /^apps\/[^/]+\/src\/features\//;

/**
 * Imports from files under the `isolated` folders (each ending in `/`) of any file under an app's
 * `src/features/`, other than the files of the folder itself: shared code (lib/, clients/) must not depend on
 * a feature, and a feature kept apart (one that others build on) must not depend on another.
 */
export function featureImportsFrom(graph: ImportGraph, isolated: readonly string[]): ImportViolation[] {
  const violations: ImportViolation[] = [];
  for (const [from, targets] of graph) {
    const folder = isolated.find((f) => from.startsWith(f));
    if (!folder) continue;
    for (const to of targets) {
      if (FEATURE_FILE.test(to) && !to.startsWith(folder)) violations.push({ from, to });
    }
  }
  return violations.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Two feature folders that import each other, with one import each way. */
export interface FeaturePair {
  features: [string, string];
  imports: [ImportViolation, ImportViolation];
}

/**
 * The pairs of folders directly under `featuresDir` (ending in `/`) whose files import each other's, however
 * indirectly the files themselves are tied: such folders are one feature in two places.
 */
export function mutualFeatures(graph: ImportGraph, featuresDir: string): FeaturePair[] {
  const folderOf = (file: string) => {
    if (!file.startsWith(featuresDir)) return undefined;
    const rest = file.slice(featuresDir.length);
    const slash = rest.indexOf('/');
    return slash === -1 ? undefined : rest.slice(0, slash);
  };
  // folder -> folder -> the first import (by name) from one into the other
  const edges = new Map<string, Map<string, ImportViolation>>();
  for (const from of [...graph.keys()].sort()) {
    const a = folderOf(from);
    if (a === undefined) continue;
    for (const to of [...graph.get(from)!].sort()) {
      const b = folderOf(to);
      if (b === undefined || b === a) continue;
      const out = edges.get(a) ?? new Map<string, ImportViolation>();
      edges.set(a, out);
      if (!out.has(b)) out.set(b, { from, to });
    }
  }
  const pairs: FeaturePair[] = [];
  for (const [a, out] of [...edges].sort(([x], [y]) => x.localeCompare(y))) {
    for (const [b, there] of [...out].sort(([x], [y]) => x.localeCompare(y))) {
      const back = edges.get(b)?.get(a);
      if (a < b && back) pairs.push({ features: [a, b], imports: [there, back] });
    }
  }
  return pairs;
}
