/** JSON responses and the spec's REST error envelope `{error, message}`, built in one place. */
import { stringify } from "@src/domain/json.ts";

export const json = (body: unknown, status = 200, headers: HeadersInit = {}): Response =>
  new Response(stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });

const reasons: Readonly<Record<number, string>> = {
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The REST error body: `{error: <reason phrase>, message: <what went wrong>}`. */
export const restError = (status: number, message: string, headers: HeadersInit = {}): Response =>
  json({ error: reasons[status] ?? "Error", message }, status, headers);
