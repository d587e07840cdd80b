/**
 * Statements reading the epoch view's stand-in run prepared (src/graphql/epoch_progress_cache.ts), but only a
 * bounded number of texts per process: each prepared text stays on every pooled connection, so a client sending
 * ever new query shapes must not grow them.
 */
import assert from "node:assert/strict";
import { preparedStandInText } from "@src/graphql/epoch_progress_cache.ts";

Deno.test("stand-in statements: prepared up to a bound of distinct texts, the rest unprepared", () => {
  const marked = (text: string) => preparedStandInText(text).startsWith("/* prepared */ ");
  let prepared = 0;
  for (let i = 0; i < 1000; i++) if (marked(`select ${i}`)) prepared++;
  assert.equal(prepared, 32);
  assert.equal(preparedStandInText("select 0"), "/* prepared */ select 0", "a text prepared before stays so");
  assert.equal(preparedStandInText("select 999"), "select 999");
});
