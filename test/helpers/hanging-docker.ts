// A Docker API socket that never finishes an answer: it sends the headers of a chunked response, then one space
// of JSON body a second (within the agent's idle timeout), so a read of it runs as long as the socket stays open.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

export interface HangingDocker {
  close(): Promise<void>;
}

export async function hangingDocker(socketPath: string): Promise<HangingDocker> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true });
  const open = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = net.createServer((conn) => {
    open.add(conn);
    conn.on("error", () => undefined);
    conn.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    const timer = setInterval(() => conn.write("1\r\n \r\n"), 1_000);
    timers.add(timer);
    conn.on("close", () => {
      clearInterval(timer);
      timers.delete(timer);
      open.delete(conn);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const conn of open) conn.destroy();
        server.close(() => resolve());
      }),
  };
}
