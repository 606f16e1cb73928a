// A TCP proxy on loopback that a test can cut as a network partition would: once cut, the bytes of
// every connection open then or opened while cut are dropped in both directions (nothing is
// closed, so a client sees a link that just went silent); after `heal`, new connections work.
import { connect, createServer, type Socket } from "node:net";

export type TcpProxy = { port: number; cut(): void; heal(): void; close(): Promise<void> };

type Link = { client: Socket; upstream: Socket; dead: boolean };

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  let isCut = false;
  const links = new Set<Link>();
  const server = createServer((client) => {
    const link: Link = { client, upstream: connect(targetPort, targetHost), dead: isCut };
    links.add(link);
    client.on("data", (chunk) => void (link.dead || link.upstream.write(chunk)));
    link.upstream.on("data", (chunk) => void (link.dead || client.write(chunk)));
    const end = () => {
      links.delete(link);
      client.destroy();
      link.upstream.destroy();
    };
    client.on("close", end).on("error", end);
    link.upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      isCut = true;
      for (const link of links) link.dead = true;
    },
    heal: () => {
      isCut = false;
    },
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
