import { ValidationFailed } from '@pa/http-kit';

// Keyset cursors are opaque to clients: base64url of `<scope>:<last id>`. The scope stops a deals cursor from
// being replayed against the portfolio.
export function encodeCursor(scope: string, lastId: number): string {
  return Buffer.from(`${scope}:${lastId}`).toString('base64url');
}

export function decodeCursor(scope: string, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^([a-z]+):([1-9][0-9]{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || m[1] !== scope) {
    throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
  }
  return Number(m[2]);
}
