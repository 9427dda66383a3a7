// The IndexedDB log of a browser memory: one database per memory name, holding the core's
// record payloads in order. JavaScript only moves bytes here; what they mean is the core's.
//
// Schema (version 1) of database `mcp-memory:<name>`:
// - `records`: auto-increment keys, each value one record payload (Uint8Array), in log order;
// - `meta`: `generation`, a number bumped each time the whole log is replaced, so another tab
//   knows to reload rather than read on from where it was.
//
// Every message is one `readwrite` transaction over both stores (`IdbLog.cycle`): read what
// other tabs stored since this one last looked, run the call (synchronously, inside the
// transaction), store what it wrote. IndexedDB runs `readwrite` transactions on the same
// stores one at a time, across tabs and workers of an origin, so no other writer can come
// between the read and the write, and a reply is released only once its transaction has
// completed (with `durability: 'strict'`, once it is on disk).

const VERSION = 1;

/** The database name of the memory called `name`. */
export function databaseName(name) {
  return `mcp-memory:${name}`;
}

/** A promise of an IDBRequest's result. */
function settled(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** A promise that the transaction completes (rejects with why it aborted). */
function completed(tx, why = () => tx.error) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(why() ?? new Error('the IndexedDB transaction was aborted'));
    tx.onerror = (event) => event.preventDefault(); // reported by onabort
  });
}

export class IdbLog {
  /**
   * Opens (creating) the log of the memory `name`. Options: `indexedDB` (the factory; the
   * global one by default), `durability` of write transactions: 'strict' (default: complete
   * means on disk) or 'relaxed' (the browser flushes to disk soon after).
   */
  static async open(name, { indexedDB = globalThis.indexedDB, durability = 'strict' } = {}) {
    if (!indexedDB) throw new Error('IndexedDB is not available here (pass options.indexedDB)');
    const request = indexedDB.open(databaseName(name), VERSION);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('records', { autoIncrement: true });
      request.result.createObjectStore('meta');
    };
    request.onblocked = () => {};
    return new IdbLog(await settled(request), name, durability);
  }

  constructor(db, name, durability) {
    this.db = db;
    this.name = name;
    this.durability = durability;
    /** Key of the last record this log has seen (keys start at 1). */
    this.lastKey = 0;
    /** The generation this log has seen. */
    this.generation = 0;
    /** Why the connection is gone (another tab deleted the memory), once it is. */
    this.gone = null;
    // Another tab deleting the database must not wait on this one.
    db.onversionchange = () => {
      this.gone = new Error(`memory '${name}' was deleted (or upgraded) elsewhere; open it again`);
      db.close();
    };
  }

  /** Every record payload, oldest first; reading on continues after them. */
  async load() {
    if (this.gone) throw this.gone;
    const tx = this.db.transaction(['records', 'meta'], 'readonly');
    const records = tx.objectStore('records');
    const [generation, values, keys] = await Promise.all([
      settled(tx.objectStore('meta').get('generation')),
      settled(records.getAll()),
      settled(records.getAllKeys()),
    ]);
    this.generation = generation ?? 0;
    this.lastKey = keys.length ? keys[keys.length - 1] : 0;
    return values;
  }

  /**
   * One message: in one transaction, reads what other writers stored since this log last
   * looked, calls `step({ records, replaced })` with it — `replaced` if the whole log was
   * replaced, `records` then being all of it — and stores the `{ replaced, records }` that
   * `step` returns as `writes` (replacing the log if `replaced`). Resolves to `step`'s
   * `result` once the transaction has completed; rejects (storing nothing) if `step` throws
   * or the transaction fails.
   */
  cycle(step) {
    if (this.gone) return Promise.reject(this.gone);
    const tx = this.db.transaction(['records', 'meta'], 'readwrite', { durability: this.durability });
    const records = tx.objectStore('records');
    const meta = tx.objectStore('meta');
    let failure;
    let outcome;
    let { lastKey, generation } = this;
    meta.get('generation').onsuccess = (event) => {
      const current = event.target.result ?? 0;
      const replaced = current !== this.generation;
      const range = replaced ? undefined : IDBKeyRange.lowerBound(this.lastKey, true);
      const values = records.getAll(range);
      const keys = records.getAllKeys(range);
      keys.onsuccess = () => {
        generation = current;
        if (keys.result.length) lastKey = keys.result[keys.result.length - 1];
        else if (replaced) lastKey = 0;
        try {
          const { result, writes } = step({ records: values.result, replaced });
          outcome = result;
          if (writes.replaced) {
            records.clear();
            generation = current + 1;
            meta.put(generation, 'generation');
          }
          for (const record of writes.records) {
            records.add(record).onsuccess = (added) => {
              lastKey = added.target.result;
            };
          }
        } catch (e) {
          failure = e;
          tx.abort();
        }
      };
    };
    return completed(tx, () => failure ?? tx.error).then(() => {
      this.lastKey = lastKey;
      this.generation = generation;
      return outcome;
    });
  }

  /** Closes the database connection. */
  close() {
    this.db.close();
  }

  /** Deletes the memory `name` (every record). Resolves once it is gone. */
  static async delete(name, { indexedDB = globalThis.indexedDB } = {}) {
    const request = indexedDB.deleteDatabase(databaseName(name));
    request.onblocked = () => {};
    await settled(request);
  }
}
