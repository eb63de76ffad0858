// A reader of the Prometheus text format (0.0.4), enough for the apps' tests and for an operator's script: each
// sample's family, name, labels and value. Not a validator: prom-client writes the text, this only reads it back.

export interface Sample {
  /** the metric's family (`pa_http_request_duration_seconds` for its `_bucket`, `_sum` and `_count` lines) */
  family: string;
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** family name → its TYPE (counter, gauge, histogram, …) */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const SUFFIXES = ['_bucket', '_sum', '_count'];

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (name && type) types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`Not a sample line: ${line}`);
    const [, name, labelText, value] = m as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const l of (labelText ?? '').matchAll(LABEL)) labels[l[1]!] = unescape(l[2]!);
    const suffix = SUFFIXES.find((s) => name.endsWith(s) && types.has(name.slice(0, -s.length)));
    const family = suffix ? name.slice(0, -suffix.length) : name;
    samples.push({ family, name, labels, value: Number(value) });
  }
  return { types, samples };
}

// What no label value may look like: an id, a number long enough to be one, a query string, a secret's prefix.
const UNBOUNDED: ReadonlyArray<readonly [RegExp, string]> = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, 'a UUID'],
  [/\d{6}/, 'a run of 6 or more digits'],
  [/\?/, 'a query string'],
  [/(^|[^a-z])(gwt|pk|plat|padm|whsec|sk|s)_/i, 'a secret’s or a session’s prefix'],
];

/**
 * The label values that look unbounded (ids, long numbers, query strings, keys), as `family{label="value"}: why`
 * lines; empty when there is none. For the metrics tests of both apps.
 */
export function unboundedLabels(samples: readonly Sample[]): string[] {
  const found = new Set<string>();
  for (const s of samples) {
    for (const [label, value] of Object.entries(s.labels)) {
      const hit = UNBOUNDED.find(([re]) => re.test(value));
      if (hit) found.add(`${s.family}{${label}="${value}"}: ${hit[1]}`);
    }
  }
  return [...found];
}
