/**
 * The client address behind trusted proxies (issue 19): TRUSTED_PROXIES entries, the addresses' canonical text,
 * and `X-Forwarded-For` / `Forwarded` read only from a trusted peer, walking from the right past trusted hops.
 * Hostile headers (forged, malformed, huge, many hops) fall back to the peer or to the real client, never to a
 * name the client chose past the proxy.
 */
import assert from "node:assert/strict";
import { canonicalIp, clientAddressOf, parseCidr, parseTrustedProxies } from "@src/domain/client_address.ts";

const proxies = (text: string) => {
  const parsed = parseTrustedProxies(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.proxies;
};

const trusted = proxies("10.0.0.1, 10.1.0.0/16, fd00::/8, ::1");
const client = (peer: string, xff: string | null, forwarded: string | null = null, list = trusted) =>
  clientAddressOf(peer, { xForwardedFor: xff, forwarded }, list);

Deno.test("addresses: strict IPv4 and IPv6, canonical text, mapped IPv4 as IPv4", () => {
  assert.equal(canonicalIp("192.0.2.1"), "192.0.2.1");
  assert.equal(canonicalIp("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
  assert.equal(canonicalIp("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
  assert.equal(canonicalIp("::"), "::");
  assert.equal(canonicalIp("::1"), "::1");
  assert.equal(canonicalIp("::ffff:192.0.2.9"), "192.0.2.9");
  assert.equal(canonicalIp("64:ff9b::192.0.2.33"), "64:ff9b::c000:221");
  for (
    const bad of [
      "",
      "256.0.0.1",
      "1.2.3",
      "01.2.3.4",
      "1.2.3.4.5",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "fe80::1%eth0",
      "::ffff:999.1.1.1",
      "localhost",
      "1.2.3.4 ",
    ]
  ) assert.equal(canonicalIp(bad), undefined, bad);
});

Deno.test("TRUSTED_PROXIES: addresses and networks; the first bad entry is named", () => {
  assert.deepEqual(parseCidr("10.0.0.0/8"), { bytes: [10, 0, 0, 0], prefix: 8 });
  assert.deepEqual(parseCidr("::ffff:10.0.0.0/104"), { bytes: [10, 0, 0, 0], prefix: 8 });
  assert.equal(parseCidr("2001:db8::/32")?.prefix, 32);
  assert.equal(parseCidr("192.0.2.1")?.prefix, 32);
  assert.deepEqual(parseTrustedProxies(""), { proxies: [] });
  assert.equal(proxies(" 10.0.0.1 ,, 2001:db8::/48 ").length, 2);
  for (
    const bad of ["10.0.0.0/33", "fd00::/129", "10.0.0.0/8/8", "proxy.example", "10.0.0.0/", "10.0.0.0/x"]
  ) {
    const parsed = parseTrustedProxies(`10.0.0.1,${bad}`);
    assert.ok("error" in parsed, bad);
    assert.ok(parsed.error.includes(`"${bad}"`), parsed.error);
  }
});

Deno.test("an untrusted peer's forwarding headers are ignored", () => {
  assert.equal(client("192.0.2.50", "198.51.100.1"), "192.0.2.50");
  assert.equal(client("192.0.2.50", null, "for=198.51.100.1"), "192.0.2.50");
  assert.equal(client("10.0.0.1", "198.51.100.1", null, []), "10.0.0.1", "no trusted proxies: none read");
  assert.equal(client("::ffff:192.0.2.50", "198.51.100.1"), "192.0.2.50", "the peer in canonical text");
  assert.equal(client("local", "198.51.100.1"), "local", "no socket: as given");
});

Deno.test("X-Forwarded-For from a trusted proxy: the rightmost hop that is not a trusted proxy", () => {
  assert.equal(client("10.0.0.1", "198.51.100.1"), "198.51.100.1");
  assert.equal(client("10.0.0.1", "203.0.113.9, 198.51.100.1"), "198.51.100.1", "a forged left hop");
  assert.equal(
    client("10.0.0.1", "198.51.100.1, 10.1.2.3, 10.0.0.1"),
    "198.51.100.1",
    "trusted hops skipped",
  );
  assert.equal(client("::1", "2001:db8::7"), "2001:db8::7");
  assert.equal(client("10.0.0.1", "[2001:DB8::7]:4711"), "2001:db8::7", "bracketed, with a port");
  assert.equal(client("10.0.0.1", "198.51.100.1:5555"), "198.51.100.1", "IPv4 with a port");
  assert.equal(client("10.0.0.1", "::ffff:198.51.100.1"), "198.51.100.1");
  assert.equal(client("10.0.0.1", "garbage, 198.51.100.1"), "198.51.100.1", "junk left of the client");
});

Deno.test("Forwarded (RFC 7239) from a trusted proxy", () => {
  assert.equal(client("10.0.0.1", null, "for=198.51.100.1"), "198.51.100.1");
  assert.equal(client("10.0.0.1", null, 'For="[2001:db8:cafe::17]:4711"'), "2001:db8:cafe::17");
  assert.equal(
    client("10.0.0.1", null, "for=203.0.113.9;proto=http, for=198.51.100.1;by=10.0.0.1;proto=https"),
    "198.51.100.1",
  );
  assert.equal(client("10.0.0.1", null, 'for=198.51.100.1, for="10.1.0.5:80"'), "198.51.100.1");
  assert.equal(client("10.0.0.1", null, 'for="198.51.100.1:8080"'), "198.51.100.1");
  // both headers: a proxy writes one, so only an agreeing pair is believed
  assert.equal(client("10.0.0.1", "198.51.100.1", "for=198.51.100.1"), "198.51.100.1");
  assert.equal(client("10.0.0.1", "198.51.100.1", "for=203.0.113.66"), "10.0.0.1");
});

Deno.test("hostile headers from a trusted proxy: the peer, never a name the client chose", () => {
  const peer = "10.0.0.1";
  for (
    const bad of [
      "",
      " ",
      ",",
      "198.51.100.1,",
      "unknown",
      "198.51.100.1 198.51.100.2",
      "[198.51.100.1]",
      "[2001:db8::1",
      "2001:db8::1]:80",
      "198.51.100.1:99999",
      "fe80::1%25eth0",
      "\u0000",
      "x".repeat(200),
      "10.0.0.1", // only trusted hops: the proxy itself is the client
      "10.1.0.1, 10.1.0.2",
    ]
  ) assert.equal(client(peer, bad), peer, JSON.stringify(bad.slice(0, 40)));
  for (
    const bad of [
      "for=unknown",
      'for="_hidden"',
      "proto=https",
      "for=198.51.100.1;for=198.51.100.2",
      'for="198.51.100.1',
      "for",
    ]
  ) assert.equal(client(peer, null, bad), peer, bad);
});

Deno.test("huge and many-hop headers cost a bounded walk", () => {
  const peer = "10.0.0.1";
  // a megabyte of forged hops left of the real client: still the real client, quickly
  const forged = Array.from({ length: 70_000 }, (_, i) => `203.0.${i >> 8 & 255}.${i & 255}`).join(", ");
  const started = performance.now();
  for (let i = 0; i < 100; i++) assert.equal(client(peer, `${forged}, 198.51.100.1`), "198.51.100.1");
  const ms = performance.now() - started;
  assert.ok(ms < 2_000, `100 walks over a ${forged.length}-byte header took ${ms} ms`);
  // more trusted hops than any real chain: the peer
  const trustedHops = Array.from({ length: 40 }, (_, i) => `10.1.0.${i}`).join(",");
  assert.equal(client(peer, `198.51.100.1,${trustedHops}`), peer);
  assert.equal(client(peer, `198.51.100.1,${trustedHops.split(",").slice(0, 20).join(",")}`), "198.51.100.1");
  // one enormous hop
  assert.equal(client(peer, "1".repeat(1 << 20)), peer);
  assert.equal(client(peer, null, `for=${"a".repeat(1 << 20)}`), peer);
});
