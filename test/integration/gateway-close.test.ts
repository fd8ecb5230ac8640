// The gateway's HTTP server on shutdown (services/gateway/http/server.ts): requests in hand are answered before the
// connections close; new connections are refused; a request on a connection still open gets 503 and Retry-After.
import { Agent, request } from "node:http";
import { pino } from "pino";
import { test } from "tap";
import { listen } from "../../services/gateway/http/server.js";
import { freePort } from "../../shared/net.js";

const log = pino({ level: "silent" });

/** One request over `agent`: status, headers and body, or the error code of a failed connection. */
function get(port: number, agent: Agent, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

test("close: a request being handled is answered; then new connections are refused and open ones get 503 with Retry-After", async (t) => {
  // The slow request is in its handler when the close begins, and stays there until the late one is answered.
  let inHandler!: () => void;
  const handling = new Promise<void>((r) => (inHandler = r));
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const server = await listen({
    host: "127.0.0.1",
    port: 0,
    log,
    prepare: (_method, path) => ({
      bodyLimit: 1024,
      handle: async () => {
        if (path === "/slow") {
          inHandler();
          await finished;
        }
        return { status: 200, body: { path } };
      },
    }),
  });
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => keepAlive.destroy());
  t.match(await get(server.port, keepAlive, "/warm"), { status: 200 }, "a connection, kept open");
  const other = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => other.destroy());
  t.match(await get(server.port, other, "/open"), { status: 200 }, "a second connection, kept open");

  const slow = get(server.port, keepAlive, "/slow");
  await handling;
  const closed = server.close(5_000);
  // While the slow one is still in hand: a request on the other open connection.
  const late = await get(server.port, other, "/late");
  t.match(late, { status: 503, headers: { "retry-after": "1" } }, "a request on a connection still open: 503 with Retry-After");
  t.match(JSON.parse((late as { body: string }).body), { error: { code: "unavailable" } });
  finish();
  const answered = await slow;
  t.match(answered, { status: 200, body: JSON.stringify({ path: "/slow" }) }, "the request in hand was answered, not reset");
  await closed;
  const fresh = new Agent({ keepAlive: false });
  t.teardown(() => fresh.destroy());
  t.match(await get(server.port, fresh, "/new"), { error: "ECONNREFUSED" }, "a new connection is refused");
});

test("a second server on a port already listened on fails to start, saying so (uWS would share it: SO_REUSEPORT)", async (t) => {
  const prepare = () => ({ bodyLimit: 1024, handle: async () => ({ status: 200, body: {} }) });
  // A port asked for by number, as INQUEST_PORT gives it (an ephemeral port 0 is not shared even with SO_REUSEPORT).
  const port = await freePort();
  const first = await listen({ host: "127.0.0.1", port, log, prepare });
  t.teardown(() => first.close(0));
  const second = listen({ host: "127.0.0.1", port, log, prepare });
  await t.rejects(second, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`), "the second listener is refused");
  await second.then((s) => s.close(0), () => undefined);
});
