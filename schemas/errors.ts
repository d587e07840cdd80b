/**
 * REST error envelopes (spec: Errors). REST endpoints answer `{error, message}`; the access layer's
 * `{error: {code, message}}` is in src/server/access_http.ts. Schema classes without `_tag` so the wire body is
 * exactly the envelope; the status is an annotation the OpenAPI document shows.
 */
import { HttpApiSchema } from "@effect/platform";
import { Schema } from "effect";

export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  { error: Schema.Literal("Bad Request"), message: Schema.String },
  HttpApiSchema.annotations({
    status: 400,
    description: "A parameter is malformed; the message says which and why",
  }),
) {}

export class NotFound extends Schema.Class<NotFound>("NotFound")(
  { error: Schema.Literal("Not Found"), message: Schema.String },
  HttpApiSchema.annotations({ status: 404 }),
) {}

export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  { error: Schema.Literal("Service Unavailable"), message: Schema.String },
  HttpApiSchema.annotations({ status: 503 }),
) {}

/** The access layer's envelope, for the OpenAPI document. */
export class AccessError extends Schema.Class<AccessError>("AccessError")(
  { error: Schema.Struct({ code: Schema.Int, message: Schema.String }) },
  HttpApiSchema.annotations({ status: 401, description: "Missing, invalid, expired or revoked API key" }),
) {}
