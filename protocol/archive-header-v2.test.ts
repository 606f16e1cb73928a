// The key-stanza layout both the agent (opening a file) and the server (accepting a rewrapped
// header) read: what parses, and each way a header's stanzas can be wrong.
import { describe, expect, test } from "bun:test";
import {
  HEADER_MAC_LENGTH,
  MASTER_KEY_STANZA_LENGTH,
  masterKeyIdOf,
  parseKeyStanzas,
  V2_STANZA_COUNT_OFFSET,
  V2_STANZAS_OFFSET,
  WRAP_KIND_MASTER_KEY,
  WRAP_KIND_X25519,
} from "./archive-header-v2";

/** A header with these stanzas (fixed fields and MAC zeroed: the layout does not read them). */
function header(stanzas: { kind: number; body: Uint8Array }[], count = stanzas.length): Uint8Array {
  const length = V2_STANZAS_OFFSET + stanzas.reduce((sum, stanza) => sum + 3 + stanza.body.length, 0) + HEADER_MAC_LENGTH;
  const bytes = new Uint8Array(length);
  bytes[10] = length >> 8;
  bytes[11] = length & 0xff;
  bytes[V2_STANZA_COUNT_OFFSET] = count;
  let offset = V2_STANZAS_OFFSET;
  for (const { kind, body } of stanzas) {
    bytes.set([kind, body.length >> 8, body.length & 0xff], offset);
    bytes.set(body, offset + 3);
    offset += 3 + body.length;
  }
  return bytes;
}

const masterStanza = { kind: WRAP_KIND_MASTER_KEY, body: new Uint8Array(MASTER_KEY_STANZA_LENGTH).fill(0xab) };
const recipientStanza = { kind: WRAP_KIND_X25519, body: new Uint8Array(80).fill(0x02) };

describe("parseKeyStanzas", () => {
  test("reads every stanza in order, unknown kinds included; masterKeyIdOf names the master key's id only", () => {
    const parsed = parseKeyStanzas(header([recipientStanza, { kind: 0x7f, body: new Uint8Array(5) }, masterStanza]));
    if ("problem" in parsed) throw new Error(parsed.problem);
    expect(parsed.stanzas.map((stanza) => [stanza.kind, stanza.body.length])).toEqual([
      [WRAP_KIND_X25519, 80],
      [0x7f, 5],
      [WRAP_KIND_MASTER_KEY, MASTER_KEY_STANZA_LENGTH],
    ]);
    expect(parsed.stanzas.map(masterKeyIdOf).map((id) => (id ? Buffer.from(id).toString("hex") : null))).toEqual([null, null, "ab".repeat(16)]);
    // A master-key kind of another size is not one.
    expect(masterKeyIdOf({ kind: WRAP_KIND_MASTER_KEY, body: new Uint8Array(95) })).toBeNull();
  });

  test("no stanza, a stanza running into the MAC, a gap before the MAC, a header too short", () => {
    expect(parseKeyStanzas(header([masterStanza], 0))).toEqual({ problem: "it holds no key stanza" });
    expect(parseKeyStanzas(header([masterStanza, recipientStanza], 1))).toEqual({ problem: "its key stanzas do not fill the header" });
    expect(parseKeyStanzas(header([masterStanza], 2))).toEqual({ problem: "its key stanzas overrun the header" });
    const overrun = header([masterStanza]);
    overrun[V2_STANZAS_OFFSET + 1] = 0xff;
    expect(parseKeyStanzas(overrun)).toEqual({ problem: "its key stanzas overrun the header" });
    expect(parseKeyStanzas(new Uint8Array(40))).toEqual({ problem: "header length 40 is too small" });
  });
});
