// Prisma driver adapter over an in-process PGlite. pglite-prisma-adapter does the value conversion;
// this wrapper fixes what would otherwise reach Prisma wrong:
//  - It recognises database errors with `instanceof` against the PGlite copy it resolves itself. npm
//    hoists pglite-prisma-adapter next to the PGlite that @prisma/dev pins (0.4.x), not ours (0.5.x),
//    so every error (unique violations included) would reach Prisma as an unknown JS error instead of
//    P2002 and friends. We map them here, the same way @prisma/adapter-pg does, so both backends
//    report identical Prisma errors.
//  - Its transactions swallow a failing COMMIT (the result promise's rejection is caught and dropped),
//    its executeScript does not await the script, and it sends SET TRANSACTION outside the transaction.
//    Transactions are therefore driven here through PGlite's transaction(), which holds PGlite's
//    transaction mutex until commit/rollback, and the adapter is used only as the query layer inside.
import type { PGlite, Transaction as PGliteTransaction } from '@electric-sql/pglite';
import {
  DriverAdapterError,
  type IsolationLevel,
  type MappedError,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';

type AdapterClient = ConstructorParameters<typeof PrismaPGlite>[0];

interface PgErrorLike {
  code: string;
  message: string;
  severity: string;
  detail?: string;
  column?: string;
  constraint?: string;
  table?: string;
  hint?: string;
}

function isPgError(err: unknown): err is PgErrorLike {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  return typeof e.code === 'string' && typeof e.message === 'string' && typeof e.severity === 'string';
}

function isDriverAdapterError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'DriverAdapterError';
}

/** @prisma/adapter-pg's mapping (7.10), so both backends give Prisma the same error kinds. */
export function mapPgError(e: PgErrorLike): MappedError {
  const keyFields = () =>
    e.detail
      ?.match(/Key \(([^)]+)\)/)
      ?.at(1)
      ?.split(', ');
  switch (e.code) {
    case '22001':
      return { kind: 'LengthMismatch', column: e.column };
    case '22003':
      return { kind: 'ValueOutOfRange', cause: e.message };
    case '22P02':
      return { kind: 'InvalidInputValue', message: e.message };
    case '23505': {
      const fields = keyFields();
      const constraint = e.constraint ? { index: e.constraint } : fields ? { fields } : undefined;
      let table = e.table;
      if (table === undefined && fields && fields.length > 0) {
        const suffix = `_${fields.join('_')}_key`;
        if (e.constraint?.endsWith(suffix)) table = e.constraint.slice(0, -suffix.length);
      }
      return { kind: 'UniqueConstraintViolation', constraint, table };
    }
    case '23502': {
      const fields = keyFields();
      return { kind: 'NullConstraintViolation', constraint: fields ? { fields } : undefined };
    }
    case '23503':
    case '23001': {
      const constraint = e.column
        ? { fields: [e.column] }
        : e.constraint
          ? { index: e.constraint }
          : undefined;
      return { kind: e.code === '23503' ? 'ForeignKeyConstraintViolation' : 'RestrictViolation', constraint };
    }
    case '40001':
    case '40P01':
      return { kind: 'TransactionWriteConflict' };
    case '42P01':
      return { kind: 'TableDoesNotExist', table: e.message.split(' ').at(1)?.split('"').at(1) };
    case '42703': {
      const raw = e.message.match(/^column (.+) does not exist$/)?.at(1);
      return {
        kind: 'ColumnNotFound',
        column: raw?.replace(/"((?:""|[^"])*)"/g, (_, id: string) => id.replaceAll('""', '"')),
      };
    }
    default:
      return {
        kind: 'postgres',
        code: e.code,
        severity: e.severity,
        message: e.message,
        detail: e.detail,
        column: e.column,
        hint: e.hint,
      };
  }
}

async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!isDriverAdapterError(err) && isPgError(err)) {
      throw new DriverAdapterError({
        ...mapPgError(err),
        originalCode: err.code,
        originalMessage: err.message,
      });
    }
    throw err;
  }
}

// The adapter calls only client.query(sql, values, options) (and exec/transaction, which we bypass),
// which PGlite's transaction object provides with the same signature.
async function queryLayer(client: PGlite | PGliteTransaction): Promise<SqlDriverAdapter> {
  const adapter = await new PrismaPGlite(client as unknown as AdapterClient).connect();
  return adapter as unknown as SqlDriverAdapter;
}

class EmbeddedTransaction implements Transaction {
  readonly provider = 'postgres' as const;
  readonly adapterName: string;
  // Prisma must not send BEGIN/COMMIT itself: PGlite's transaction() does, under its mutex.
  readonly options = { usePhantomQuery: true };
  readonly #inner: SqlDriverAdapter;
  readonly #finish: (outcome: 'commit' | 'rollback') => void;
  readonly #done: Promise<void>;

  constructor(
    adapterName: string,
    inner: SqlDriverAdapter,
    finish: (outcome: 'commit' | 'rollback') => void,
    done: Promise<void>,
  ) {
    this.adapterName = adapterName;
    this.#inner = inner;
    this.#finish = finish;
    this.#done = done;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return mapped(() => this.#inner.queryRaw(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return mapped(() => this.#inner.executeRaw(query));
  }

  // A nested $transaction (tx.$transaction) is a savepoint: as @prisma/adapter-pg (7.10) sends them, so that code
  // nesting one behaves alike on both backends instead of failing here alone (issue 30).
  async createSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `SAVEPOINT ${name}`, args: [], argTypes: [] });
  }

  async rollbackToSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `ROLLBACK TO SAVEPOINT ${name}`, args: [], argTypes: [] });
  }

  async releaseSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `RELEASE SAVEPOINT ${name}`, args: [], argTypes: [] });
  }

  commit(): Promise<void> {
    this.#finish('commit');
    return mapped(() => this.#done);
  }

  rollback(): Promise<void> {
    this.#finish('rollback');
    return mapped(() => this.#done);
  }
}

class EmbeddedAdapter implements SqlDriverAdapter {
  readonly provider = 'postgres' as const;
  readonly adapterName: string;
  readonly #db: PGlite;
  readonly #inner: SqlDriverAdapter;

  constructor(db: PGlite, inner: SqlDriverAdapter) {
    this.#db = db;
    this.#inner = inner;
    this.adapterName = inner.adapterName;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return mapped(() => this.#inner.queryRaw(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return mapped(() => this.#inner.executeRaw(query));
  }

  executeScript(script: string): Promise<void> {
    return mapped(async () => {
      await this.#db.exec(script);
    });
  }

  // The isolation level is moot: while a transaction is open nothing else runs on the database
  // (PGlite is one session and the transaction holds its mutex), so every transaction is serial.
  startTransaction(_isolationLevel?: IsolationLevel): Promise<Transaction> {
    return mapped(
      () =>
        new Promise<Transaction>((resolveTx, rejectTx) => {
          let finish: (outcome: 'commit' | 'rollback') => void = () => {};
          const outcome = new Promise<'commit' | 'rollback'>((resolve) => {
            finish = resolve;
          });
          const done = this.#db.transaction(async (tx) => {
            const inner = await queryLayer(tx);
            resolveTx(new EmbeddedTransaction(this.adapterName, inner, finish, done));
            if ((await outcome) === 'rollback') await tx.rollback();
          });
          // Before resolveTx this reports a failed BEGIN; afterwards commit()/rollback() report it.
          done.catch(rejectTx);
        }),
    );
  }

  getConnectionInfo() {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

class EmbeddedAdapterFactory implements SqlDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = 'pglite-prisma-adapter';
  readonly #db: PGlite;

  constructor(db: PGlite) {
    this.#db = db;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return new EmbeddedAdapter(this.#db, await queryLayer(this.#db));
  }
}

/** Pass to `new PrismaClient({ adapter })`. The PGlite instance stays owned by the caller. */
export function embeddedAdapterFactory(db: PGlite): SqlDriverAdapterFactory {
  return new EmbeddedAdapterFactory(db);
}
