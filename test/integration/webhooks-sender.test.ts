// The outbound POST itself (services/dispatcher/sender.ts) against real node:http servers on loopback: the request
// line, Host and Content-Length it writes, the headers as given, an IPv6 literal, keep-alive reuse, what an answer
// and a refused connection become, and the whole-request deadline.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "tap";
import { createSender } from "../../services/dispatcher/sender.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  socket: number;
}

async function server(host: string, answer: (seen: Seen) => { status: number; body?: string; delayMs?: number } = () => ({ status: 204 })) {
  const seen: Seen[] = [];
  let sockets = 0;
  const ids = new WeakMap<object, number>();
  const srv: Server = createServer((req, res) => {
    if (!ids.has(req.socket)) ids.set(req.socket, ++sockets);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const s: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, socket: ids.get(req.socket) as number };
      seen.push(s);
      const a = answer(s);
      setTimeout(() => {
        res.statusCode = a.status;
        res.setHeader("retry-after", "7");
        res.end(a.body ?? "");
      }, a.delayMs ?? 0);
    });
  });
  srv.listen(0, host);
  await once(srv, "listening");
  return { seen, port: (srv.address() as AddressInfo).port, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

test("the request: path and query, Host, Content-Length, the headers as given; keep-alive reuses the connection", async (t) => {
  const s = await server("127.0.0.1", () => ({ status: 200, body: "thanks" }));
  const sender = createSender({ allowPrivate: true });
  const body = Buffer.from(JSON.stringify({ hello: "wörld" }));
  const url = `http://127.0.0.1:${s.port}/hooks/in?tenant=a&x=1`;
  const first = await sender.send({ url, headers: { "Content-Type": "application/json", "X-Service-Event": "agent.connected", "x-custom": "v" }, body, timeoutMs: 5_000 });
  const second = await sender.send({ url, headers: { "Content-Type": "application/json" }, body, timeoutMs: 5_000 });
  t.match(first, { kind: "response", status: 200, body: "thanks", retryAfterMs: 7_000 });
  t.equal(second.kind, "response");
  const [a, b] = s.seen;
  t.equal(a?.method, "POST");
  t.equal(a?.url, "/hooks/in?tenant=a&x=1");
  t.equal(a?.headers.host, `127.0.0.1:${s.port}`);
  t.equal(a?.headers["content-length"], String(body.length), "the body's length in bytes");
  t.equal(a?.body, body.toString());
  t.equal(a?.headers["content-type"], "application/json");
  t.equal(a?.headers["x-service-event"], "agent.connected");
  t.equal(a?.headers["x-custom"], "v");
  t.equal(a?.headers.connection, "keep-alive");
  t.equal(b?.socket, a?.socket, "the second request reuses the first one's connection");
  sender.close();
  await s.close();
});

test("an IPv6 literal: connected to without its brackets, Host with them", async (t) => {
  const s = await server("::1");
  const sender = createSender({ allowPrivate: true });
  const r = await sender.send({ url: `http://[::1]:${s.port}/v6`, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });
  t.match(r, { kind: "response", status: 204 });
  t.equal(s.seen[0]?.url, "/v6");
  t.equal(s.seen[0]?.headers.host, `[::1]:${s.port}`);
  sender.close();
  await s.close();
});

test("a URL stored with credentials before they were refused still delivers, without them", async (t) => {
  const s = await server("127.0.0.1");
  const sender = createSender({ allowPrivate: true });
  const r = await sender.send({ url: `http://user:hunter2@127.0.0.1:${s.port}/old`, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });
  t.match(r, { kind: "response", status: 204 });
  t.equal(s.seen[0]?.url, "/old");
  t.equal(s.seen[0]?.headers.authorization, undefined, "no Authorization made of them");
  t.equal(s.seen[0]?.headers.host, `127.0.0.1:${s.port}`, "nor in the Host");
  sender.close();
  await s.close();
});

test("failures become values: a refused connection, a deadline, a private target", async (t) => {
  const s = await server("127.0.0.1", () => ({ status: 204, delayMs: 2_000 }));
  const closed = await server("127.0.0.1");
  const port = closed.port;
  await closed.close();
  const open = createSender({ allowPrivate: true });
  t.match(await open.send({ url: `http://127.0.0.1:${port}/`, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 }), { kind: "error", error: "connection_refused" });
  t.match(await open.send({ url: `http://127.0.0.1:${s.port}/slow`, headers: {}, body: Buffer.from("{}"), timeoutMs: 100 }), { kind: "error", error: "timeout" });
  const guarded = createSender({ allowPrivate: false });
  t.match(await guarded.send({ url: `http://127.0.0.1:${s.port}/`, headers: {}, body: Buffer.from("{}"), timeoutMs: 1_000 }), { kind: "error", error: "private_target" });
  open.close();
  guarded.close();
  await s.close();
});
