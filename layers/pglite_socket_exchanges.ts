/**
 * pglite-socket serves several connections from one PGlite by queueing their protocol messages one at a time,
 * keeping a connection's messages together only inside a transaction. Outside one, an extended-protocol
 * exchange (Parse, Bind, Describe, Execute, then Sync) of one connection could interleave with another's, whose
 * Parse replaces the unnamed statement: `unnamed prepared statement does not exist`, under concurrent use (the
 * service's own pool, the usage flush, a CLI). This keeps each exchange together too: after a connection's
 * Parse/Bind/Describe/Execute/Close/Flush, only its own messages are taken until its Sync (or a simple Query).
 * It replaces the queue's `processQueue` with the same loop plus that rule.
 */
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";

interface QueuedMessage {
  readonly handlerId: number;
  readonly message: Uint8Array;
  readonly timestamp: number;
  readonly resolve: (bytes: number) => void;
  readonly reject: (error: unknown) => void;
  readonly onData: (data: Uint8Array) => void;
}

interface QueryQueue {
  queue: Array<QueuedMessage>;
  processing: boolean;
  lastHandlerId: number | null;
  readonly db: {
    isInTransaction(): boolean;
    runExclusive<T>(fn: () => Promise<T>): Promise<T>;
    execProtocolRawStream(
      message: Uint8Array,
      options: { onRawData: (data: Uint8Array) => void },
    ): Promise<void>;
  };
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

/** Parse, Bind, Describe, Execute, Close, Flush: an exchange goes on; anything else (Sync, Query) ends it. */
const continuesExchange = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

export const keepExchangesTogether = (server: PGLiteSocketServer): void => {
  const queue = (server as unknown as { queryQueue?: QueryQueue }).queryQueue;
  if (!queue || typeof queue.processQueue !== "function" || !Array.isArray(queue.queue)) {
    throw new Error("pglite-socket's query queue is not as expected: check keepExchangesTogether");
  }
  /** The connection in the middle of an extended-protocol exchange, if any. */
  let inExchange: number | null = null;
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId) => {
    clear(handlerId);
    if (inExchange === handlerId) {
      inExchange = null;
      void queue.processQueue();
    }
  };
  queue.processQueue = async function (this: QueryQueue) {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = this.db.isInTransaction() && this.lastHandlerId !== null
          ? this.lastHandlerId
          : inExchange;
        let item: QueuedMessage | undefined;
        if (owner !== null) {
          const at = this.queue.findIndex((q) => q.handlerId === owner);
          // the owner's next message has not arrived yet: wait for it (its enqueue runs this loop again)
          if (at === -1) break;
          item = this.queue.splice(at, 1)[0];
        } else {
          item = this.queue.shift();
        }
        if (!item) break;
        const current = item;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (data) => {
                bytes += data.length;
                current.onData(data);
              },
            })
          );
        } catch (error) {
          inExchange = null;
          current.reject(error);
          continue;
        }
        inExchange = continuesExchange.has(current.message[0]!) ? current.handlerId : null;
        this.lastHandlerId = current.handlerId;
        current.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
};
