import type { HistoryTurn, SessionHistory, SessionSummary } from '@pa/contracts';
import { sessionTitle } from './session-title.ts';

/** One turn of a history page as its statement returns it, times in epoch milliseconds. */
export type TurnRow = [
  seq: string,
  role: HistoryTurn['role'],
  content: string,
  status: HistoryTurn['status'],
  at: number,
];

/** A web session as the history statements return it. */
export interface SessionRow {
  createdAt: number;
  lastActiveAt: number;
  firstQuestion: string | null;
  /** the title the user gave it, if any */
  title: string | null;
}

export interface SessionListRow extends SessionRow {
  sessionId: string;
  turnCount: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A stored turn as the history API answers it: its `seq` is its id, and the cursor of earlier pages. */
export function toHistoryTurn([id, role, content, status, at]: TurnRow): HistoryTurn {
  return { id, role, content, status, createdAt: iso(at) };
}

/** One page of a session's history; `nextBefore` is null on its first page. */
export function toSessionHistory(
  sessionId: string,
  row: SessionRow,
  turns: HistoryTurn[],
  nextBefore: string | null,
): SessionHistory {
  return {
    sessionId,
    title: row.title ?? sessionTitle(row.firstQuestion),
    createdAt: iso(row.createdAt),
    lastActiveAt: iso(row.lastActiveAt),
    turns,
    nextBefore,
  };
}

/** A web session in the history list, titled by the user or else by its first question. */
export function toSessionSummary(r: SessionListRow): SessionSummary {
  return {
    sessionId: r.sessionId,
    title: r.title ?? sessionTitle(r.firstQuestion),
    createdAt: iso(r.createdAt),
    lastActiveAt: iso(r.lastActiveAt),
    turnCount: r.turnCount,
  };
}

/** The cursor of the page after the one that ends with `r`: its last activity and its id. */
export const listCursor = (r: SessionListRow) => `${Math.round(r.lastActiveAt)}_${r.sessionId}`;
