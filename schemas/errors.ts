/**
 * Error envelopes (spec: Errors). REST endpoints answer `{error, message}`; the access layer (src/server/
 * access_http.ts) answers `{error: {code, message}}`. Schema classes without `_tag` so the wire body is exactly
 * the envelope; the status is an annotation the OpenAPI document shows.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
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
  HttpApiSchema.annotations({
    status: 404,
    description: "The thing asked for does not exist on that network",
  }),
) {}

export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  { error: Schema.Literal("Service Unavailable"), message: Schema.String },
  HttpApiSchema.annotations({
    status: 503,
    description: "A database, the key store or an upstream does not answer; try again shortly",
  }),
) {}

/** The access layer's `{error: {code, message}}` with its status as `code`. */
const accessEnvelope = <S extends number>(status: S) =>
  Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(status), message: Schema.String }) });

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  accessEnvelope(401),
  HttpApiSchema.annotations({
    status: 401,
    description: "API key required, Invalid API key, API key expired, or Key revoked",
  }),
) {}

export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  accessEnvelope(403),
  HttpApiSchema.annotations({ status: 403, description: "API key is inactive (deactivated by its owner)" }),
) {}

export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  accessEnvelope(429),
  HttpApiSchema.annotations({
    status: 429,
    description: "The key's rate, daily quota or GraphQL budget is spent; Retry-After says when to come back",
  }),
) {}
