/** The failed-authentication throttle's counting: per address (IPv6 per /64), over a sliding 10 s. */
import assert from "node:assert/strict";
import { addressGroup, makeAuthFailures } from "@src/server/auth_failures.ts";

Deno.test("addresses are counted alone for IPv4, per /64 for IPv6, mapped IPv4 as IPv4", () => {
  assert.equal(addressGroup("203.0.113.7"), "203.0.113.7");
  assert.equal(addressGroup("::ffff:203.0.113.7"), "203.0.113.7");
  assert.equal(addressGroup("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(addressGroup("2001:0db8:0001:0002:ffff:0:0:9"), "2001:db8:1:2::/64");
  assert.equal(addressGroup("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(addressGroup("::1"), "0:0:0:0::/64");
});

Deno.test("past the limit an address waits until its oldest counted failure is 10 s old", () => {
  const failures = makeAuthFailures(3);
  const t0 = 1_000_000;
  for (let i = 0; i < 3; i++) {
    assert.equal(failures.blockedFor("198.51.100.1", t0 + i * 1000), 0);
    failures.record("198.51.100.1", t0 + i * 1000);
  }
  assert.equal(failures.blockedFor("198.51.100.1", t0 + 3000), 7000);
  assert.equal(failures.blockedFor("198.51.100.2", t0 + 3000), 0, "another address is not affected");
  assert.equal(failures.blockedFor("198.51.100.1", t0 + 10_000), 0, "the oldest failure aged out");
  failures.record("2001:db8::1", t0);
  failures.record("2001:db8::2", t0);
  failures.record("2001:db8::3", t0);
  assert.ok(failures.blockedFor("2001:db8::ffff", t0) > 0, "the whole /64 waits");
});

Deno.test("a limit of 0 throttles nothing", () => {
  const failures = makeAuthFailures(0);
  for (let i = 0; i < 100; i++) failures.record("192.0.2.1", i);
  assert.equal(failures.blockedFor("192.0.2.1", 100), 0);
});

Deno.test("a concurrent flood of distinct keys is held to the allowance before any failure is counted", () => {
  const failures = makeAuthFailures(3);
  const t0 = 1_000_000;
  const releases = ["k1", "k2", "k3"].map((k) => failures.beginLookup("198.51.100.9", k, t0));
  assert.ok(releases.every((r) => r !== undefined), "three lookups at once are allowed");
  assert.equal(failures.beginLookup("198.51.100.9", "k4", t0), undefined, "a fourth distinct key waits");
  const again = failures.beginLookup("198.51.100.9", "k2", t0);
  assert.ok(again !== undefined, "a request for a key already being looked up shares its slot");
  assert.ok(failures.beginLookup("198.51.100.10", "k4", t0) !== undefined, "another address is not affected");
  releases[0]!();
  releases[0]!(); // twice is once
  const fourth = failures.beginLookup("198.51.100.9", "k4", t0);
  assert.ok(fourth !== undefined, "a finished lookup frees its slot");
  // failures and lookups in flight count together
  failures.record("198.51.100.9", t0);
  assert.equal(failures.beginLookup("198.51.100.9", "k5", t0), undefined);
  for (const r of [releases[1]!, releases[2]!, again!, fourth!]) r();
  assert.ok(failures.beginLookup("198.51.100.9", "k5", t0) !== undefined);
});

Deno.test("with no limit, lookups are never refused", () => {
  const failures = makeAuthFailures(0);
  for (let i = 0; i < 100; i++) assert.ok(failures.beginLookup("192.0.2.1", `k${i}`, i) !== undefined);
});
