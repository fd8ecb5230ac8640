// `inquest up` keeps its generated API key in the data dir and registers it again at every start; once revoked it
// stays revoked (the gateway only logs that), so printing it as "API key" would hand out a key that answers 401.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test, type Test } from "tap";
import { eventually } from "../helpers/stack.js";
import { cli } from "../helpers/cli.js";
import { DIST, tempDir } from "../helpers/services.js";

/** `inquest up` on `dataDir` until its "Inquest is running." block is out; resolves with all it printed so far. */
async function upUntilRunning(t: Test, dataDir: string): Promise<{ out: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [join(DIST, "cli", "main.js"), "up"], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin`, INQUEST_DATA_DIR: dataDir, INQUEST_PORT: "0", LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  await eventually(async () => (/Ctrl-C stops everything/.test(out) ? true : undefined), 60_000);
  return {
    out: () => out,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

test("up says so when the bootstrap key it kept was revoked, instead of printing it as the API key", async (t) => {
  const dir = tempDir("inquest-up-revoked-");
  t.teardown(() => dir.remove());
  const first = await upUntilRunning(t, dir.path);
  const key = /API key:\s+(\S+)/.exec(first.out())?.[1] ?? "";
  t.match(key, /^inq_/, "a usable key is printed on the first start");
  const env = { INQUEST_DATA_DIR: dir.path };
  const id = cli(["keys", "list"], env).stdout.split("\n").find((l) => l.split("\t")[2] === "bootstrap")?.split("\t")[0] ?? "";
  t.equal(cli(["keys", "revoke", id], env).status, 0, `revoked ${id}`);
  t.equal(await first.stop(), 0);

  const second = await upUntilRunning(t, dir.path);
  const out = second.out();
  t.notMatch(out, /API key:\s+inq_/, "the revoked key is not offered as the API key");
  t.notMatch(out, `Bearer ${key}`, "nor used in the example");
  t.match(out, /API key:\s+none usable: the key kept in .*dev-api-key was revoked/);
  t.match(out, /inquest keys create --scopes/, "saying how to get one");
  t.equal(await second.stop(), 0);
});
