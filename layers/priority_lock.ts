/**
 * The embedded session's lock (`sql_pglite.ts`): one holder at a time, and of the callers waiting, the urgent
 * ones first. Background work (chain sync's read-ahead: batches of a dozen statements fired at once) otherwise
 * queues ahead of the short statements of interactive requests, and they wait for all of it. Background waiters
 * are not starved: after `urgentInARow` urgent grants while one waits, the oldest background waiter goes next.
 * Within a class, first come first served.
 *
 * It also tells how much interactive work meets background work (`contention`): urgent callers that arrived while
 * a background caller held or awaited the lock, over the last one to two seconds. Background work sizes itself
 * by it (chain sync reads smaller batches while interactive requests are waiting on the session).
 */
import { Effect } from "effect";

export class PriorityLock {
  private held = false;
  // Sets keep insertion order: the first waiter is the oldest
  private readonly urgent = new Set<() => void>();
  private readonly background = new Set<() => void>();
  private urgentGrants = 0;
  private heldInBackground = false;
  // two one-second buckets of urgent arrivals that met background work: the current and the one before
  private bucketStart = 0;
  private metNow = 0;
  private metBefore = 0;

  constructor(
    private readonly urgentInARow: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Waits (interruptibly: an interrupted waiter leaves its queue) until the caller holds the lock. */
  take(background: boolean): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (!background && (this.heldInBackground || this.background.size > 0)) this.met();
      if (!this.held) {
        this.held = true;
        this.heldInBackground = background;
        resume(Effect.void);
        return;
      }
      const queue = background ? this.background : this.urgent;
      let granted = false;
      const grant = () => {
        granted = true;
        this.heldInBackground = background;
        resume(Effect.void);
      };
      queue.add(grant);
      // interrupted while waiting: leave the queue; interrupted after being handed the lock but before running
      // on with it: hand it on, or nobody would ever release it
      return Effect.sync(() => {
        if (granted) this.release();
        else queue.delete(grant);
      });
    });
  }

  /** Hands the lock to the next waiter, or frees it. */
  release(): void {
    const next = this.next();
    if (next) next();
    else {
      this.held = false;
      this.heldInBackground = false;
    }
  }

  /** Urgent callers that met background work in the last one to two seconds. */
  contention(): number {
    this.roll();
    return this.metNow + this.metBefore;
  }

  private met(): void {
    this.roll();
    this.metNow++;
  }

  private roll(): void {
    const now = this.now();
    const elapsed = now - this.bucketStart;
    if (elapsed < 1000) return;
    this.metBefore = elapsed < 2000 ? this.metNow : 0;
    this.metNow = 0;
    this.bucketStart = now;
  }

  /** Waiting callers, both classes. */
  get waiting(): number {
    return this.urgent.size + this.background.size;
  }

  private next(): (() => void) | undefined {
    const backgroundTurn = this.background.size > 0 &&
      (this.urgent.size === 0 || this.urgentGrants >= this.urgentInARow);
    const queue = backgroundTurn ? this.background : this.urgent;
    const [first] = queue;
    if (!first) return undefined;
    queue.delete(first);
    if (backgroundTurn) this.urgentGrants = 0;
    else if (this.background.size > 0) this.urgentGrants++;
    return first;
  }
}
