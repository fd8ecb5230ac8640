// A scripted webhook subscriber on 127.0.0.1 (node:http, port 0): the far side of the network seam in the
// outbound-webhook tests. Each path has its own script deciding how to answer the n-th request it gets.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Received {
  path: string;
  /** Date.now() when the request's body had arrived. */
  at: number;
  headers: IncomingHttpHeaders;
  /** The headers as sent, name and value alternating (a header named `__proto__` is not a key of `headers`). */
  rawHeaders: string[];
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** How to answer: a status (and body, after an optional delay), or never answer at all ("hang"). */
export type Answer = { status: number; body?: string; delayMs?: number; headers?: Record<string, string> } | "hang";
/** `n` counts this path's requests from 1. */
export type Script = (req: Received, n: number) => Answer;

export interface Receiver {
  url(path: string): string;
  /** Scripts a path (default answer: 200 "ok"). */
  on(path: string, script: Script): void;
  received(path?: string): Received[];
  waitFor(predicate: (all: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export const answer =
  (...statuses: Array<number | "hang">): Script =>
  (_req, n) => {
    const s = statuses[Math.min(n, statuses.length) - 1] ?? 200;
    return s === "hang" ? "hang" : { status: s, body: JSON.stringify({ status: s }) };
  };

export async function startReceiver(): Promise<Receiver> {
  const scripts = new Map<string, Script>();
  const log: Received[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const listeners = new Set<() => void>();
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const received: Received = { path, at: Date.now(), headers: req.headers, rawHeaders: req.rawHeaders, body, json };
      log.push(received);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      for (const l of listeners) l();
      const a: Answer = (scripts.get(path) ?? ((): Answer => ({ status: 200, body: "ok" })))(received, n);
      if (a === "hang") return;
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(a.status, { "content-type": "text/plain", ...a.headers });
        res.end(a.body ?? "");
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    on: (path, script) => void scripts.set(path, script),
    received: (path) => (path === undefined ? [...log] : log.filter((r) => r.path === path)),
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (!predicate(log)) return false;
          listeners.delete(check);
          clearTimeout(timer);
          resolve([...log]);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${log.length} requests received)`));
        }, timeoutMs);
        if (!check()) listeners.add(check);
      });
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
