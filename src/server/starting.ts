/**
 * The handler while the layers are still being built (main.ts swaps in the real one when they are), and again
 * while a shutdown drains: the port is open so orchestrators and operators can see why the service is not
 * serving. `/health` answers 200 (the process is alive) with each dependency's state, `/ready` and every other
 * route 503 with the reason, in the REST envelope; while stopping, with `connection: close`.
 */
import { type DependencyBoard, notReadyReason } from "@layers/dependencies.ts";
import { json } from "@src/http/json.ts";
import { NotReady, ServiceStarting } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import type { Handler } from "./router.ts";

export const startingHandler = (board: DependencyBoard): Handler => (request) => {
  const { pathname } = new URL(request.url);
  const reason = notReadyReason(board) ?? "starting";
  const stopping = board.stopping();
  if (pathname === "/health" && (request.method === "GET" || request.method === "HEAD")) {
    const status = stopping ? "stopping" : "starting";
    const headers = {
      "cache-control": "no-store",
      "retry-after": "1",
      ...(stopping ? { connection: "close" } : {}),
    };
    return Promise.resolve(json({ status, networks: {}, dependencies: board.snapshot() }, 200, headers));
  }
  return Promise.resolve(toResponse(
    pathname === "/ready" ? new NotReady({ reason, stopping }) : new ServiceStarting({ reason, stopping }),
  ));
};
