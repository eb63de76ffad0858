import { PositiveIdValue } from '@pa/contracts';
import { ValidationFailed } from '@pa/http-kit';

// The tenant-copies read walks items in (property id, item id) order, so its cursor carries both: base64url of
// `t:<property id>:<item id>`, opaque to clients like the other lists' cursors (lib/cursor.ts), and scoped so
// that another list's cursor is refused rather than misread.

export interface CopyPosition {
  propertyId: number;
  itemId: number;
}

export function encodeCopyCursor(at: CopyPosition): string {
  return Buffer.from(`t:${at.propertyId}:${at.itemId}`).toString('base64url');
}

export function decodeCopyCursor(cursor: string | undefined): CopyPosition {
  if (cursor === undefined) return { propertyId: 0, itemId: 0 };
  const m = /^t:([1-9][0-9]{0,9}):([1-9][0-9]{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // ids are PostgreSQL integers: a forged cursor past their range would otherwise fail in the database
  const property = m ? PositiveIdValue.safeParse(Number(m[1])) : undefined;
  const item = m ? PositiveIdValue.safeParse(Number(m[2])) : undefined;
  if (!property?.success || !item?.success) {
    throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
  }
  return { propertyId: property.data, itemId: item.data };
}
