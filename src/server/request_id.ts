/**
 * `X-Request-Id`: the client's own id when it is safe to echo and log (bounded, a plain charset: UUIDs, hex,
 * base64, trace ids), otherwise a fresh UUID. It goes back on every answer and onto every log line of the request.
 */
const safeId = /^[A-Za-z0-9._:+/=-]{1,128}$/;

export const requestIdHeader = "x-request-id";

export const requestIdOf = (request: Request): string => {
  const given = request.headers.get(requestIdHeader);
  return given !== null && safeId.test(given) ? given : crypto.randomUUID();
};
