/** JSON answers for every protocol adapter and the server; error envelopes are each protocol's mapper's. */
import { stringify } from "@src/domain/json.ts";
import { withKnownBody } from "./known_body.ts";
import { responseWith } from "./response_headers.ts";

/** A response of already serialised JSON. */
export const jsonText = (text: string, status = 200, headers?: HeadersInit): Response =>
  withKnownBody(responseWith(text, status, "application/json; charset=utf-8", headers), text);

export const json = (body: unknown, status = 200, headers?: HeadersInit): Response =>
  jsonText(stringify(body), status, headers);
