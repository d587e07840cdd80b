/** Short constructors for the COPY values the demo chain's rows carry (bytea, json, timestamps, text as hex). */
import { Bytea, Json } from "./copy_sink.ts";

export const hexText = (s: string) =>
  Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");
export const b = (hex: string) => new Bytea(hex);
export const j = (value: unknown) => new Json(value);
export const utc = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");
