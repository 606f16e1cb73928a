// Is an IP address a public internet one? IPv4: ipaddr.js's ranges, "unicast" only. IPv6: global
// unicast (2000::/3) only, and every form that carries an IPv4 address (IPv4-mapped, IPv4-
// translated, NAT64, 6to4, Teredo, ISATAP) is judged by the IPv4 address it carries, by the same
// rules, since that is where the packets end up. The deprecated IPv4-compatible form (::/96, e.g.
// ::7f00:1 = ::127.0.0.1) is refused whatever it carries.
import ipaddr from "ipaddr.js";

type IPv6 = ipaddr.IPv6;

/** The IPv4 addresses an IPv6 address carries, and the name of the form; null when it carries none. */
function embeddedIPv4(address: IPv6): { form: string; carried: ipaddr.IPv4[] } | null {
  const bytes = address.toByteArray();
  const v4 = (offset: number, flip = false) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => (flip ? byte ^ 0xff : byte)));
  const range = address.range();
  // IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96; the
  // local-use 64:ff9b:1::/48 is refused as a whole below): the last 32 bits.
  if (range === "ipv4Mapped" || range === "rfc6145" || address.match(ipaddr.IPv6.parse("64:ff9b::"), 96))
    return { form: range === "rfc6052" ? "NAT64" : range, carried: [v4(12)] };
  // 6to4 (2002::/16): bits 16–47.
  if (range === "6to4") return { form: "6to4", carried: [v4(2)] };
  // Teredo (2001::/32): the server at bits 32–63 and the client, inverted, in the last 32 bits.
  if (range === "teredo") return { form: "Teredo", carried: [v4(4), v4(12, true)] };
  // ISATAP: an interface identifier of 0000:5efe or 0200:5efe followed by the IPv4 address.
  if ((bytes[8] === 0 || bytes[8] === 2) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) return { form: "ISATAP", carried: [v4(12)] };
  return null;
}

/**
 * Why `address` is not a public unicast address (a range name such as "loopback", or for an IPv6
 * form carrying IPv4, the form, the IPv4 address and its range), or null when it is public.
 * Throws for a string that is not an IP address.
 */
export function nonPublicRange(address: string): string | null {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") {
    const range = parsed.range();
    return range === "unicast" ? null : range;
  }
  const v6 = parsed as IPv6;
  const range = v6.range();
  if (range === "unspecified" || range === "loopback") return range;
  if (v6.match(ipaddr.IPv6.parse("::"), 96)) return "ipv4Compatible";
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    for (const carried of embedded.carried) {
      const why = nonPublicRange(carried.toString());
      if (why) return `${embedded.form} of ${carried.toString()}: ${why}`;
    }
    // The carrier itself must still be routable: ISATAP sits in any prefix, checked as IPv6 below.
    if (embedded.form !== "ISATAP") return null;
  }
  if (range !== "unicast") return range;
  // Global unicast is 2000::/3; ipaddr.js calls anything it has no name for "unicast".
  return v6.match(ipaddr.IPv6.parse("2000::"), 3) ? null : "notGlobalUnicast";
}
