/**
 * How long the HTTP edge's compression holds the event loop: compresses the big answers it meets (the GraphiQL
 * and Swagger bundles, a 1.7 MB JSON answer) with the service's own code, reading the result as a socket would,
 * while a 1 ms timer records the longest gap. `npm run measure:compression`.
 */
import { type Encoding, negotiateEncoding } from "@src/http/compression.ts";

const file = (path: string) => Deno.readFile(new URL(`../node_modules/${path}`, import.meta.url));
const json = new TextEncoder().encode(JSON.stringify(
  Array.from(
    { length: 9000 },
    (_, i) => ({ block_no: i, hash: crypto.randomUUID().repeat(2), fields: ["a", "b"] }),
  ),
));
const bodies: Array<[string, Uint8Array<ArrayBuffer>, string]> = [
  ["graphiql.min.js", await file("graphiql/graphiql.min.js"), "text/javascript"],
  ["swagger-ui-bundle.js", await file("swagger-ui-dist/swagger-ui-bundle.js"), "text/javascript"],
  ["JSON answer", json, "application/json"],
];

let longestGap = 0;
let last = performance.now();
const probe = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - last);
  last = now;
}, 1);

for (const [name, bytes, type] of bodies) {
  for (const encoding of ["br", "gzip"] as Array<Encoding>) {
    await new Promise((r) => setTimeout(r, 50));
    longestGap = 0;
    last = performance.now();
    const started = performance.now();
    const response = await negotiateEncoding(
      new Request("http://x/", { headers: { "accept-encoding": encoding } }),
      new Response(bytes, { headers: { "content-type": type } }),
    );
    const size = (await response.arrayBuffer()).byteLength;
    const ms = performance.now() - started;
    await new Promise((r) => setTimeout(r, 5)); // let the timer see the last stretch
    console.log(
      `${name} ${(bytes.length / 1e6).toFixed(2)} MB -> ${encoding} ${(size / 1e3).toFixed(0)} kB in ` +
        `${ms.toFixed(0)} ms; longest event-loop gap ${longestGap.toFixed(1)} ms`,
    );
  }
}
clearInterval(probe);
