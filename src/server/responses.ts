/** JSON responses and the spec's REST error envelope `{error, message}`, built in one place. */
import { stringify } from "@src/domain/json.ts";

/** A response of already serialised JSON. */
export const jsonText = (text: string, status = 200, headers: HeadersInit = {}): Response =>
  new Response(text, { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });

export const json = (body: unknown, status = 200, headers: HeadersInit = {}): Response =>
  jsonText(stringify(body), status, headers);

const reasons: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Content Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The REST error body: `{error: <reason phrase>, message: <what went wrong>}`. */
export const restError = (status: number, message: string, headers: HeadersInit = {}): Response =>
  json({ error: reasons[status] ?? "Error", message }, status, headers);
