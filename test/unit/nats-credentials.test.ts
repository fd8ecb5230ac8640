// `inquest nats-auth` (shared/nats/credentials.ts): seeds already in the directory are kept and stay users, so a run
// that names only new agents locks nobody out.
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromSeed } from "@nats-io/nkeys";
import { test } from "tap";
import { writeNatsAuth } from "../../shared/nats/credentials.js";

const publicKey = (file: string): string => fromSeed(new TextEncoder().encode(readFileSync(file, "utf8").trim())).getPublicKey();

test("a second run with only new agents keeps the earlier agents and the fleet as users, with the same keys", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "inquest-nats-auth-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = writeNatsAuth(dir, { agents: ["web-1", "web-2"], fleet: true });
  const keys = { web1: publicKey(first.agents["web-1"] as string), fleet: publicKey(first.fleet as string), services: publicKey(first.services) };
  const second = writeNatsAuth(dir, { agents: ["db-1"], fleet: false });
  const conf = readFileSync(second.conf, "utf8");
  for (const [name, key] of Object.entries(keys)) t.ok(conf.includes(key), `${name} is still a user`);
  t.ok(conf.includes(publicKey(second.agents["db-1"] as string)), "the new agent is a user");
  t.same(Object.keys(second.agents).sort(), ["db-1", "web-1", "web-2"]);
  t.equal(publicKey(second.agents["web-1"] as string), keys.web1, "same identity");
  t.equal(statSync(second.agents["db-1"] as string).mode & 0o777, 0o600, "seeds are 0600");
  // Removing an agent: delete its seed and run again.
  const web2 = publicKey(second.agents["web-2"] as string);
  unlinkSync(second.agents["web-2"] as string);
  const third = writeNatsAuth(dir, { agents: [], fleet: false });
  t.same(Object.keys(third.agents).sort(), ["db-1", "web-1"]);
  t.notOk(readFileSync(third.conf, "utf8").includes(web2), "web-2 is no user any more");
});
