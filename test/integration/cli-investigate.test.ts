// `inquest investigate` against a gateway that misbehaves (docs/api.md#cli): a scripted HTTP server stands in for
// it, so each answer (unreachable, not JSON, a passing 503, a dropped connection, 403) comes exactly when wanted.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test, type Test } from "tap";
import { cliAsync } from "../helpers/cli.js";
import { freePort } from "../../shared/net.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A gateway answering POST /v1/investigations with `post` and each GET of the investigation with the next of `gets`. */
async function scriptedGateway(t: Test, post: Handler, gets: Handler[] = []): Promise<{ url: string; getTimes: number[] }> {
  const getTimes: number[] = [];
  const server = createServer((req, res) => {
    if (req.method === "POST") return post(req, res);
    getTimes.push(Date.now());
    const next = gets.shift();
    if (next) return next(req, res);
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, getTimes };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
};
const queued = json(202, { investigation_id: "inv_1", status: "queued" });
const investigate = (url: string) => cliAsync(["investigate", "any cryptominers?"], { INQUEST_URL: url, INQUEST_KEY: "inq_test" });

test("a gateway that cannot be reached is named, with the reason", async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const r = await investigate(url);
  t.equal(r.status, 1, r.stderr);
  t.match(r.stderr, `cannot reach the gateway at ${url}`);
  t.match(r.stderr, /ECONNREFUSED/);
  t.notMatch(r.stderr, /^inquest: fetch failed$/m);
});

test("an answer that is not JSON is a clear error naming the status, not a JSON parse error", async (t) => {
  const gw = await scriptedGateway(t, (_req, res) => res.writeHead(502, { "content-type": "text/html" }).end("<html>Bad Gateway</html>"));
  const r = await investigate(gw.url);
  t.equal(r.status, 1, r.stderr);
  t.match(r.stderr, /POST .*\/v1\/investigations answered 502 with a body that is not JSON \(text\/html\): <html>Bad Gateway/);
  t.notMatch(r.stderr, /Unexpected token/);
  const follow = await scriptedGateway(t, queued, [(_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok")]);
  const f = await investigate(follow.url);
  t.equal(f.status, 1, f.stderr);
  t.match(f.stderr, /GET .*\/v1\/investigations\/inv_1 answered 200 with a body that is not JSON \(text\/plain\): ok/);
});
