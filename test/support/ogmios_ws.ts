/** A raw JSON-RPC WebSocket for tests: send frames, await replies one by one, in arrival order. */
import { WebSocket } from "ws";
import { parseExact } from "@src/domain/json.ts";

export interface RawSocket {
  readonly send: (frame: unknown) => void;
  // deno-lint-ignore no-explicit-any
  readonly next: (timeoutMs?: number) => Promise<any>;
  /** The next reply with integers beyond 2^53 as exact bigints. */
  // deno-lint-ignore no-explicit-any
  readonly nextExact: (timeoutMs?: number) => Promise<any>;
  /** Whether a reply arrives within `ms` (consumed if it does). */
  readonly quietFor: (ms: number) => Promise<boolean>;
  readonly close: () => void;
  readonly closed: Promise<number>;
}

export const connect = async (url: string): Promise<RawSocket> => {
  const socket = new WebSocket(url);
  const replies: Array<string> = [];
  const waiters: Array<(v: string) => void> = [];
  socket.on("message", (data) => {
    const value = String(data);
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else replies.push(value);
  });
  const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.on("open", () => resolve());
    socket.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.on("error", reject);
  });
  const nextText = (timeoutMs = 20_000): Promise<string> =>
    replies.length > 0 ? Promise.resolve(replies.shift()!) : new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (v: string) => {
        clearTimeout(timer);
        resolve(v);
      };
      waiters.push(waiter);
    });
  return {
    send: (frame) =>
      socket.send(typeof frame === "string" || frame instanceof Uint8Array ? frame : JSON.stringify(frame)),
    next: (ms) => nextText(ms).then((text) => JSON.parse(text)),
    nextExact: (ms) => nextText(ms).then(parseExact),
    quietFor: (ms) => nextText(ms).then(() => false, () => true),
    close: () => socket.close(),
    closed,
  };
};
