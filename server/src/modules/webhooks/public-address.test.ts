// Every special-purpose range (IANA's IPv4 and IPv6 registries) and every IPv6 form that carries
// an IPv4 address, judged as the IPv4 address it carries: a webhook may reach none of them.
import { describe, expect, test } from "bun:test";
import { nonPublicRange } from "./public-address";
import { parseWebhookUrl } from "./target";

const refused: [address: string, why: string][] = [
  // IPv4
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.1.2.3", "private"],
  ["100.64.0.1", "carrierGradeNat"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "linkLocal"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "reserved"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "reserved"],
  ["198.51.100.1", "reserved"],
  ["203.0.113.1", "reserved"],
  ["224.0.0.1", "multicast"],
  ["240.0.0.1", "reserved"],
  ["192.31.196.1", "as112"],
  ["192.52.193.1", "amt"],
  ["255.255.255.255", "broadcast"],
  // IPv6 of its own
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fe80::1", "linkLocal"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456::1", "uniqueLocal"],
  ["fec0::1", "deprecatedSiteLocal"],
  ["ff02::1", "multicast"],
  ["100::1", "discard"],
  ["2001:db8::1", "reserved"],
  ["3fff::1", "reserved"],
  ["2001:2::1", "benchmarking"],
  ["2001:10::1", "deprecatedOrchid"],
  ["2001:20::1", "orchid2"],
  ["5f00::1", "segmentRouting"],
  ["64:ff9b:1::1", "rfc6052"],
  ["2001:3::1", "amt"],
  ["2001:4:112::1", "as112v6"],
  ["4000::1", "notGlobalUnicast"],
  ["e000::1", "notGlobalUnicast"],
  // IPv4-compatible (::/96), whatever it carries: the probe's [::127.0.0.1], [::7f00:1], [::a9fe:a9fe]
  ["::7f00:1", "ipv4Compatible"],
  ["::a9fe:a9fe", "ipv4Compatible"],
  ["::808:808", "ipv4Compatible"],
  // IPv6 forms carrying a non-public IPv4 address
  ["::ffff:127.0.0.1", "ipv4Mapped of 127.0.0.1: loopback"],
  ["::ffff:a9fe:a9fe", "ipv4Mapped of 169.254.169.254: linkLocal"],
  ["::ffff:0:a00:1", "rfc6145 of 10.0.0.1: private"],
  ["64:ff9b::7f00:1", "NAT64 of 127.0.0.1: loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254: linkLocal"],
  ["64:ff9b::c0a8:101", "NAT64 of 192.168.1.1: private"],
  ["2002:7f00:1::", "6to4 of 127.0.0.1: loopback"],
  ["2002:a00:1::1", "6to4 of 10.0.0.1: private"],
  ["2002:a9fe:a9fe::1", "6to4 of 169.254.169.254: linkLocal"],
  // Teredo: the server (bits 32–63) and the client (last 32 bits, inverted)
  ["2001:0:a00:1::1", "Teredo of 10.0.0.1: private"],
  ["2001:0:808:808:0:0:80ff:fffe", "Teredo of 127.0.0.1: loopback"],
  // ISATAP interface identifiers
  ["2606:4700::5efe:7f00:1", "ISATAP of 127.0.0.1: loopback"],
  ["2606:4700::200:5efe:a9fe:a9fe", "ISATAP of 169.254.169.254: linkLocal"],
];

const allowed = [
  "8.8.8.8",
  "93.184.215.14",
  "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
  "2a00:1450:4001:82a::200e",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "2001:0:808:808:0:0:f7f7:f7f7",
  "2606:4700::5efe:808:808",
];

describe("nonPublicRange", () => {
  test.each(refused)("%s is refused (%s)", (address, why) => {
    expect(nonPublicRange(address)).toBe(why);
  });
  test.each(allowed)("%s is public", (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});

describe("webhook URLs spelling an IPv6 address", () => {
  test.each([
    "[::127.0.0.1]",
    "[::7f00:1]",
    "[::a9fe:a9fe]",
    "[::ffff:127.0.0.1]",
    "[64:ff9b::127.0.0.1]",
    "[2002:7f00:1::]",
    "[2001:0:808:808::80ff:fffe]",
    "[fd00::1]",
  ])("https://%s/ is refused", (host) => {
    expect(() => parseWebhookUrl(`https://${host}/hook`, { allowPrivate: false })).toThrow("is not a public internet address");
  });
  test("a public one is taken, and WEBHOOK_ALLOW_PRIVATE takes the rest", () => {
    expect(parseWebhookUrl("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook", { allowPrivate: false }).hostname).toBe(
      "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]",
    );
    expect(parseWebhookUrl("http://[::7f00:1]/hook", { allowPrivate: true }).hostname).toBe("[::7f00:1]");
  });
});
