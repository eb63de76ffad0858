import { ValidationFailed } from '@pa/http-kit';

// The changes read's position: the last (change number, document id) handed out, opaque to clients as
// base64url of `k:<seq>:<id>`. Change numbers are bigint, kept as decimal strings.

export interface KnowledgePosition {
  seq: string;
  id: number;
}

export const START: KnowledgePosition = { seq: '0', id: 0 };

export function encodeKnowledgeCursor(p: KnowledgePosition): string {
  return Buffer.from(`k:${p.seq}:${p.id}`).toString('base64url');
}

export function decodeKnowledgeCursor(cursor: string | undefined): KnowledgePosition {
  if (cursor === undefined) return START;
  const m = /^k:(0|[1-9][0-9]{0,18}):(0|[1-9][0-9]{0,9})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  // bigint and integer columns: a forged cursor past their range would otherwise fail in the database
  if (!m || BigInt(m[1]!) > 9_223_372_036_854_775_807n || Number(m[2]) > 2_147_483_647) {
    throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
  }
  return { seq: m[1]!, id: Number(m[2]) };
}
