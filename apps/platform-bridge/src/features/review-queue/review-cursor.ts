import { ValidationFailed } from '@pa/http-kit';

// The queue is ordered by time, not id (pending ones by expiry, the others by submission), so its keyset cursor
// carries both: base64url of `r:<epoch ms>:<id>`. Opaque to clients, like lib/cursor.ts's id cursors.
export interface QueuePosition {
  at: Date;
  id: number;
}

export function encodeQueueCursor(p: QueuePosition): string {
  return Buffer.from(`r:${p.at.getTime()}:${p.id}`).toString('base64url');
}

export function decodeQueueCursor(cursor: string | undefined): QueuePosition | null {
  if (cursor === undefined) return null;
  const m = /^r:(\d{1,15}):([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const ms = m ? Number(m[1]) : NaN;
  const id = m ? Number(m[2]) : NaN;
  if (!m || id > 2_147_483_647 || ms > 8_640_000_000_000_000) {
    throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
  }
  return { at: new Date(ms), id };
}
