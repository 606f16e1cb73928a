// The few parts of the DNS wire format (RFC 1035, SRV RFC 2782) a test's name server needs: read
// the question of a query, and write an answer of A, SRV or TXT records. No DNS library is in the
// project's dependencies, and a MongoDB `mongodb+srv://` lookup asks only these three types (and
// AAAA, answered with no records). Test infrastructure only: no compression when writing, no
// EDNS, no TCP (answers stay far below 512 bytes).

export const TYPE = { A: 1, TXT: 16, AAAA: 28, SRV: 33 } as const;

export type DnsRecord =
  | { type: "A"; address: string }
  | { type: "SRV"; priority: number; weight: number; port: number; target: string }
  | { type: "TXT"; text: string };

/** Names (lowercase, no trailing dot) to their records. A name absent is NXDOMAIN. */
export type Zone = Record<string, DnsRecord[]>;

export interface Question {
  id: number;
  name: string;
  type: number;
  /** The question section's bytes, echoed in the answer. */
  raw: Buffer;
  /** The query's recursion-desired bit, echoed. */
  recursionDesired: boolean;
}

/** Reads the first question of a query; undefined when the packet is not one we can answer. */
export function readQuestion(packet: Buffer): Question | undefined {
  if (packet.length < 12 || packet.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < packet.length) {
    const length = packet[offset]!;
    if (length === 0) break;
    if (length > 63) return undefined; // a pointer cannot appear in a query's first name
    labels.push(packet.subarray(offset + 1, offset + 1 + length).toString("latin1"));
    offset += 1 + length;
  }
  const end = offset + 5; // the zero label, type, class
  if (end > packet.length) return undefined;
  return {
    id: packet.readUInt16BE(0),
    name: labels.join(".").toLowerCase(),
    type: packet.readUInt16BE(offset + 1),
    raw: packet.subarray(12, end),
    recursionDesired: (packet[2]! & 0x01) !== 0,
  };
}

function encodeName(name: string): Buffer {
  const parts = name.split(".").filter((label) => label !== "");
  return Buffer.concat([...parts.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "latin1")])), Buffer.from([0])]);
}

function encodeData(record: DnsRecord): Buffer {
  if (record.type === "A") return Buffer.from(record.address.split(".").map(Number));
  if (record.type === "SRV") {
    const fixed = Buffer.alloc(6);
    fixed.writeUInt16BE(record.priority, 0);
    fixed.writeUInt16BE(record.weight, 2);
    fixed.writeUInt16BE(record.port, 4);
    return Buffer.concat([fixed, encodeName(record.target)]);
  }
  // One character-string of at most 255 bytes, as MongoDB's TXT options are.
  const text = Buffer.from(record.text, "utf8");
  return Buffer.concat([Buffer.from([text.length]), text]);
}

/** The answer to a question from the zone: its records of that type, NOERROR with none, or NXDOMAIN. */
export function writeAnswer(question: Question, zone: Zone): Buffer {
  const records = zone[question.name];
  const matching = (records ?? []).filter((record) => TYPE[record.type] === question.type);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  // QR, AA, RD echoed, RA; RCODE 3 (NXDOMAIN) when the name is not in the zone.
  header[2] = 0x84 | (question.recursionDesired ? 0x01 : 0);
  header[3] = 0x80 | (records === undefined ? 3 : 0);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(matching.length, 6);
  const answers = matching.map((record) => {
    const data = encodeData(record);
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(question.type, 0);
    fixed.writeUInt16BE(1, 2); // class IN
    fixed.writeUInt32BE(5, 4); // TTL: short, so a test changing the zone is seen
    fixed.writeUInt16BE(data.length, 8);
    return Buffer.concat([encodeName(question.name), fixed, data]);
  });
  return Buffer.concat([header, question.raw, ...answers]);
}
