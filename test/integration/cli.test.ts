// The operator CLI as an operator runs it (docs/api.md#cli): up, keys via the data dir's nats.url, investigate.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { api, eventually, startStack } from "../helpers/stack.js";
import { minerFleet } from "../helpers/fleets.js";
import { cli, cliAsync, issueKey } from "../helpers/cli.js";
import { DIST, REPO, tempDir } from "../helpers/services.js";

const FLEET = minerFleet("web-1", "web-1.prod");

test("inquest investigate shows progress, prints the report and exits 0; a key that cannot read exits 1", async (t) => {
  const stack = await startStack({ fleet: FLEET });
  t.teardown(() => stack.stop());
  await eventually(async () => {
    const a = await api(stack.baseUrl, "GET", "/v1/agents", { key: stack.key });
    return a.json.agents.some((x: { status: string }) => x.status === "online") ? true : undefined;
  });
  const env = { INQUEST_URL: stack.baseUrl, INQUEST_KEY: stack.key };
  const r = cli(["investigate", "any cryptominers?", "--mode", "live", "--scope", "env=prod"], env);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stderr, /investigation inv_/);
  t.match(r.stderr, /\[#+\] 1\/1/, "a progress bar");
  t.match(r.stdout, /severity: (high|critical|medium)/);
  t.match(r.stdout, /web-1/);
  const triggerOnly = issueKey(stack.nats.url, ["investigations:trigger"]);
  const denied = cli(["investigate", "any cryptominers?"], { INQUEST_URL: stack.baseUrl, INQUEST_KEY: triggerOnly });
  t.equal(denied.status, 1);
  t.match(denied.stderr, /403/);
  t.equal(cli(["investigate"], env).status, 2, "usage error without a question");
});

test("keys commands find NATS through $INQUEST_DATA_DIR/nats.url", async (t) => {
  const stack = await startStack({ services: ["gateway"] });
  t.teardown(() => stack.stop());
  const dir = tempDir("inquest-cli-");
  t.teardown(() => dir.remove());
  const none = cli(["keys", "list"], { INQUEST_DATA_DIR: dir.path });
  t.equal(none.status, 2);
  t.match(none.stderr, /no NATS server/);
  writeFileSync(join(dir.path, "nats.url"), `${stack.nats.url}\n`);
  const created = cli(["keys", "create", "--scopes", "investigations:read", "--name", "via-file"], { INQUEST_DATA_DIR: dir.path });
  t.equal(created.status, 0, created.stderr);
  const key = created.stdout.trim();
  t.match(key, /^inq_/);
  t.equal(created.stdout.split("\n").filter(Boolean).length, 1, "the key alone on stdout");
  t.equal((await api(stack.baseUrl, "GET", "/v1/investigations", { key })).status, 200);
});

test("inquest up (make run): embedded NATS, every service, URLs and key printed, nats.url and gateway.url written, clean stop", async (t) => {
  const dir = tempDir("inquest-up-");
  t.teardown(() => dir.remove());
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dir.path, INQUEST_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const baseUrl = await eventually(async () => /base URL:\s+(\S+)/.exec(out)?.[1], 30_000);
  const key = /API key:\s+(\S+)/.exec(out)?.[1] ?? "";
  t.match(out, /NATS URL:\s+nats:\/\/127\.0\.0\.1:\d+ \(embedded/);
  t.ok(existsSync(join(dir.path, "nats.url")));
  t.match(readFileSync(join(dir.path, "nats.url"), "utf8"), /^nats:\/\/127\.0\.0\.1:\d+/);
  t.equal(statSync(join(dir.path, "nats.url")).mode & 0o777, 0o600, "nats.url is readable by its owner only");
  // "Running" means every service answers: no retries from here on.
  const created = await api(baseUrl, "POST", "/v1/webhooks/incoming/endpoints", { key, body: { provider: "generic" } });
  t.equal(created.status, 201, created.text);
  const receipt = await api(baseUrl, "POST", new URL(created.json.url as string).pathname, { body: { query: "posted right after start" } });
  t.equal(receipt.status, 202, `an inbound event posted right after the line is queued: ${receipt.text}`);
  t.type(receipt.json.investigation_id, "string");
  t.equal((await api(baseUrl, "GET", "/readyz")).status, 200);
  const fleet = (JSON.parse(readFileSync(join(REPO, "examples", "fleet.json"), "utf8")) as { agents: Array<{ agent_id: string; online?: boolean }> }).agents;
  const listed = await api(baseUrl, "GET", "/v1/agents?limit=200", { key });
  t.same(
    (listed.json.agents as Array<{ agent_id: string; status: string }>).map((a) => [a.agent_id, a.status]).sort(),
    fleet.map((a) => [a.agent_id, a.online === false ? "offline" : "online"]).sort(),
    "the demo fleet is registered, the online agents online",
  );
  t.equal(readFileSync(join(dir.path, "gateway.url"), "utf8").trim(), baseUrl, "gateway.url names the gateway");
  // INQUEST_PORT=0 put the gateway off 8080: investigate finds it through the data dir, with no --url.
  const asked = await cliAsync(["investigate", "any cryptominers?", "--mode", "cached"], { INQUEST_DATA_DIR: dir.path, INQUEST_KEY: key });
  t.equal(asked.status, 0, asked.stderr);
  t.match(asked.stdout, /verdict/i, "the report, from the gateway gateway.url names");
  child.kill("SIGTERM");
  t.equal(await exited, 0, "stops cleanly on SIGTERM");
  const after = await fetch(`${baseUrl}/healthz`).then(
    () => "still up",
    () => "down",
  );
  t.equal(after, "down", "the gateway is gone too");
});
