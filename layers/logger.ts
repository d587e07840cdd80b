/**
 * Structured logging: one JSON object per line on stdout. Every value passes through `scrub`, so API keys,
 * passwords and bearer tokens never reach a log, whoever logged them.
 */
import { Cause, HashMap, Layer, Logger, type LogLevel } from "effect";

const secretKey = /(pass(word)?|secret|token|api_?key|authorization|signing_?key)/i;
/**
 * `<PREFIX>_<32 characters>`, the spec's API key format, whatever the prefix (API_KEY_PREFIX is 1 to 12 letters or
 * digits, and keys made under an earlier prefix still work): 32 letters or digits after `_` and a letter or
 * digit, not followed by another. Whatever precedes (`_`, `=`, a longer word) does not matter, and each position
 * is tried in constant time.
 */
const apiKeySecret = /(?<=[A-Za-z0-9])_[A-Za-z0-9]{32}(?![A-Za-z0-9])/g;
/**
 * `scheme://user:password@`: the password is masked. Linear: a scheme starts only where a run of scheme
 * characters starts (the lookbehind), and the user and password stop at `/`, which every later `://` holds, so
 * no character is scanned from two starting points.
 */
const urlPassword = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s/?#]*@/gi;

/** Removes secrets from any value about to be logged. */
export const scrub = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") {
    return value.replace(urlPassword, "$1***@").replace(apiKeySecret, "_***");
  }
  if (value === null || typeof value !== "object" || depth > 5) return value;
  if (value instanceof Error) return scrub(value.message, depth + 1);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, secretKey.test(k) ? "***" : scrub(v, depth + 1)]),
  );
};

const render = (message: unknown): unknown => {
  const parts = Array.isArray(message) ? message : [message];
  return parts.length === 1 ? parts[0] : parts;
};

/** The JSON line logger; `write` is replaceable so tests can capture lines. */
export const makeJsonLogger = (write: (line: string) => void = (l) => console.log(l)) =>
  Logger.make(({ logLevel, message, date, annotations, cause }) => {
    const entry: Record<string, unknown> = {
      time: date.toISOString(),
      level: logLevel.label.toLowerCase(),
    };
    const body = render(message);
    if (typeof body === "string") entry.message = body;
    else entry.data = body;
    for (const [k, v] of HashMap.toEntries(annotations)) entry[k] = v;
    if (!Cause.isEmpty(cause)) entry.cause = Cause.pretty(cause).split("\n")[0];
    write(JSON.stringify(scrub(entry)));
  });

/** Replaces Effect's default logger and sets the minimum level. */
export const JsonLoggerLive = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(Logger.defaultLogger, makeJsonLogger()),
    Logger.minimumLogLevel(level),
  );
