// The short text beside a tool's structuredContent, for clients that show (or give the model) only the text: the
// answer's scalar facts, its objects as key=value lists, and the first items of each list one line each, each
// line its identifying and status fields. Capped, and saying so: the full answer is always the structured one.
// Its own words are ASCII: one character beyond Latin-1 makes V8 hold the whole JSON answer as a two-byte string,
// which doubled the cost of writing a portfolio page to the socket.

const MAX_ITEMS = 20;
const MAX_CHARS = 4000;
const MAX_FIELDS = 8;
const MAX_VALUE = 120;

// The fields that name an item or say how it stands, in the order a reader wants them; others follow.
const FIRST = [
  'id',
  'proposal_id',
  'ref',
  'property_id',
  'property_ref',
  'address',
  'title',
  'subject',
  'kind',
  'type',
  'compliance_type',
  'status',
  'compliance_status',
  'letting_status',
  'stage',
  'expiry_date',
  'due_date',
  'received_at',
  'snippet',
];

const FIRST_SET = new Set(FIRST);

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => ['string', 'number', 'boolean'].includes(typeof v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function value(v: Scalar): string {
  if (typeof v !== 'string') return String(v);
  const s = v.length > MAX_VALUE ? `${v.slice(0, MAX_VALUE - 3)}...` : v;
  return /\s\s|[\n\r\t]/.test(s) ? s.replace(/\s+/g, ' ') : s;
}

/** An address object as one line, else its scalar fields as key=value. */
function flat(o: Record<string, unknown>): string {
  if (typeof o.line1 === 'string' && typeof o.postcode === 'string') {
    return [o.line1, o.line2, o.town, o.postcode].filter((p) => typeof p === 'string' && p).join(', ');
  }
  return Object.entries(o)
    .filter((e): e is [string, Scalar] => isScalar(e[1]))
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(', ');
}

function itemLine(item: unknown): string {
  if (!isObject(item)) return isScalar(item) ? value(item) : '';
  const parts: string[] = [];
  const add = (k: string) => {
    const v = item[k];
    if (isScalar(v)) parts.push(`${k}=${value(v)}`);
    else if (k === 'address' && isObject(v)) parts.push(flat(v));
  };
  for (const k of FIRST) {
    if (parts.length >= MAX_FIELDS) return parts.join('; ');
    if (k in item) add(k);
  }
  for (const k of Object.keys(item)) {
    if (parts.length >= MAX_FIELDS) break;
    if (!FIRST_SET.has(k)) add(k);
  }
  return parts.join('; ');
}

export function renderToolText(title: string, answer: object): string {
  const lines = [title];
  for (const [key, v] of Object.entries(answer)) {
    if (v === null || v === undefined) lines.push(`${key}: none`);
    else if (isScalar(v)) lines.push(`${key}: ${value(v)}`);
    else if (Array.isArray(v)) {
      lines.push(`${key} (${v.length}):`);
      for (const item of v.slice(0, MAX_ITEMS)) lines.push(`- ${itemLine(item)}`);
      if (v.length > MAX_ITEMS) lines.push(`- (${v.length - MAX_ITEMS} more in the structured answer)`);
    } else if (isObject(v)) {
      const nested = Object.entries(v)
        .filter(([, x]) => isObject(x))
        .map(([k, x]) => `${k}: ${flat(x as Record<string, unknown>)}`);
      lines.push(`${key}: ${[flat(v), ...nested].filter(Boolean).join('; ')}`);
    }
  }
  const text = lines.join('\n');
  return text.length > MAX_CHARS
    ? `${text.slice(0, MAX_CHARS)}\n... (cut; the structured answer holds all of it)`
    : text;
}
