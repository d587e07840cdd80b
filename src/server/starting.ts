/**
 * The handler while the layers are still being built (main.ts swaps in the real one when they are), and again
 * while a shutdown drains: the port is open so orchestrators and operators can see why the service is not
 * serving. `/health` answers 200 (the process is alive) with each dependency's state, `/ready` and every other
 * route 503 with the reason, in the REST envelope; while stopping, with `connection: close`.
 */
import { type DependencyBoard, notReadyReason } from "@layers/dependencies.ts";
import { json, restError } from "./responses.ts";
import type { Handler } from "./router.ts";

export const startingHandler = (board: DependencyBoard): Handler => (request) => {
  const { pathname } = new URL(request.url);
  const reason = notReadyReason(board) ?? "starting";
  const stopping = board.stopping();
  const headers = {
    "cache-control": "no-store",
    "retry-after": "1",
    ...(stopping ? { connection: "close" } : {}),
  };
  if (pathname === "/health" && (request.method === "GET" || request.method === "HEAD")) {
    const status = stopping ? "stopping" : "starting";
    return Promise.resolve(json({ status, networks: {}, dependencies: board.snapshot() }, 200, headers));
  }
  const message = pathname === "/ready"
    ? `Not ready: ${reason}`
    : `The service is ${reason}; try again shortly`;
  return Promise.resolve(restError(503, message, headers));
};
