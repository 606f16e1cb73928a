// A DNS server on loopback UDP that answers TXT questions from a table the test fills: what the
// server's SSO_DNS_RESOLVER points at, so domain proofs go through real DNS packets and node:dns.
// Names it does not know get NXDOMAIN. Only what a TXT look-up needs (RFC 1035 sections 4.1-4.1.3).

export type TestDnsServer = {
  /** `127.0.0.1:<port>`, for SSO_DNS_RESOLVER. */
  address: string;
  /** Publishes a TXT record (added to those already at `name`). */
  addTxt(name: string, value: string): void;
  stop(): void;
};

function readName(packet: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (packet[at]! !== 0) {
    const length = packet[at]!;
    labels.push(packet.subarray(at + 1, at + 1 + length).toString("ascii"));
    at += length + 1;
  }
  return { name: labels.join(".").toLowerCase(), end: at + 1 };
}

function answer(query: Buffer, records: Map<string, string[]>): Buffer {
  const { name, end } = readName(query, 12);
  const questionEnd = end + 4; // QTYPE and QCLASS
  const type = query.readUInt16BE(end);
  const values = type === 16 ? (records.get(name) ?? []) : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, RD copied, RA; NXDOMAIN (3) when the name holds nothing.
  header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100) | (records.has(name) ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(values.length, 6);
  const answers = values.map((value) => {
    const text = Buffer.from(value, "utf8");
    const rdata = Buffer.concat([Buffer.from([text.length]), text]);
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // the question's name
    fixed.writeUInt16BE(16, 2);
    fixed.writeUInt16BE(1, 4);
    fixed.writeUInt32BE(60, 6);
    fixed.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([fixed, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const socket = await Bun.udpSocket({
    hostname: "127.0.0.1",
    socket: {
      data(self, data, port, address) {
        self.send(answer(Buffer.from(data), records), port, address);
      },
    },
  });
  return {
    address: `127.0.0.1:${socket.port}`,
    addTxt(name, value) {
      const key = name.toLowerCase();
      records.set(key, [...(records.get(key) ?? []), value]);
    },
    stop: () => socket.close(),
  };
}
