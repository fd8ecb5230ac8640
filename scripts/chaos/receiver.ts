// The webhook subscriber of a chaos run: records the event_id of every POST and, to exercise retries, fails one
// in ten first attempts with a 500.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChaosReceiver {
  url: string;
  received(): string[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<ChaosReceiver> {
  const got: string[] = [];
  const failedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      let id = "";
      try {
        id = String((JSON.parse(body) as { event_id?: unknown }).event_id ?? "");
      } catch {
        /* not JSON: answered 400 below */
      }
      if (!id) {
        res.writeHead(400).end();
        return;
      }
      if (!failedOnce.has(id) && Math.random() < 0.1) {
        failedOnce.add(id);
        res.writeHead(500).end("try again");
        return;
      }
      got.push(id);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => got,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
