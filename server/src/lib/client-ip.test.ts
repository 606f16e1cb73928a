import { expect, test } from "bun:test";
import { loadConfig } from "../config";
import { forwardedClientAddress, rateLimitAddress } from "./client-ip";

test("TRUST_PROXY=N takes the entry N places from the right; entries further left are the client's to forge", () => {
  const header = "6.6.6.6, 203.0.113.9, 10.0.0.2";
  expect(forwardedClientAddress(header, 0)).toBeNull();
  expect(forwardedClientAddress(header, 1)).toBe("10.0.0.2");
  expect(forwardedClientAddress(header, 2)).toBe("203.0.113.9");
  // Fewer entries than proxies: the proxies were bypassed, so the socket's address is used.
  expect(forwardedClientAddress("203.0.113.9", 2)).toBeNull();
  expect(forwardedClientAddress(null, 1)).toBeNull();
  expect(forwardedClientAddress("203.0.113.9, ", 1)).toBeNull();
});

test("TRUST_PROXY accepts false, true and a number of proxies", () => {
  const hops = (value: string) => loadConfig({ TRUST_PROXY: value, DATA_DIR: "/tmp/unused" }).trustProxyHops;
  expect([hops("false"), hops("true"), hops("0"), hops("2")]).toEqual([0, 1, 0, 2]);
  for (const bad of ["yes", "-1", "1.5", "11"]) expect(() => hops(bad)).toThrow(/TRUST_PROXY must be false, true \(one proxy\) or the number of proxies/);
});

test("limits count an IPv6 address by its /64, and an IPv4-mapped one as IPv4", () => {
  expect(rateLimitAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(rateLimitAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
  expect(rateLimitAddress("[2001:DB8:1:2::9]")).toBe("2001:db8:1:2::/64");
  expect(rateLimitAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  expect(rateLimitAddress("2001:db8:1:3::1")).not.toBe(rateLimitAddress("2001:db8:1:2::1"));
  expect(rateLimitAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
  expect(rateLimitAddress("::ffff:cb00:7107")).toBe("203.0.113.7");
  expect(rateLimitAddress("203.0.113.7")).toBe("203.0.113.7");
  expect(rateLimitAddress("local")).toBe("local");
});
