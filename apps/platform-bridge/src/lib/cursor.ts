import { PositiveIdValue } from '@pa/contracts';
import { ValidationFailed } from '@pa/http-kit';

// Keyset cursors are opaque to clients: base64url of `<scope>:<last id>`. The scope stops a deals cursor from
// being replayed against the portfolio.
export function encodeCursor(scope: string, lastId: number): string {
  return Buffer.from(`${scope}:${lastId}`).toString('base64url');
}

export function decodeCursor(scope: string, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^([a-z]+):([1-9][0-9]{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // ids are PostgreSQL integers: a forged cursor past their range would otherwise fail in the database
  const id = m && m[1] === scope ? PositiveIdValue.safeParse(Number(m[2])) : undefined;
  if (!id?.success) {
    throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
  }
  return id.data;
}
