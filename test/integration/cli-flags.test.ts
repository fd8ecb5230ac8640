// The CLI's flags, as an operator types them (docs/api.md#cli): each command takes the flags it names and no other;
// a mistyped flag or a flag missing its value is a usage error (exit 2, the command's usage), never ignored, and
// `--help` on a command prints its usage instead of running it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test, type Test } from "tap";
import { cli } from "../helpers/cli.js";
import { REPO, tempDir } from "../helpers/services.js";

/** An environment in which `up`, were it to start, would leave a trace (nats.url) and fail fast (no NATS there). */
function upEnv(t: Test): { env: Record<string, string>; started: () => boolean } {
  const dir = tempDir("inquest-cli-flags-");
  t.teardown(() => dir.remove());
  return { env: { INQUEST_DATA_DIR: dir.path, NATS_URL: "nats://127.0.0.1:1", INQUEST_PORT: "0" }, started: () => existsSync(join(dir.path, "nats.url")) };
}

test("a mistyped flag is refused with the command's usage, before anything starts", async (t) => {
  const { env, started } = upEnv(t);
  const r = cli(["up", "--clustr"], env);
  t.equal(r.status, 2, r.stderr);
  t.match(r.stderr, /unknown flag --clustr/);
  t.match(r.stderr, /usage: inquest up \[--cluster\]/);
  t.notOk(started(), "nothing was started");
  const keys = cli(["keys", "list", "--nat", "nats://127.0.0.1:1"]);
  t.equal(keys.status, 2);
  t.match(keys.stderr, /unknown flag --nat\b/);
  const dir = tempDir("inquest-cli-flags-out-");
  t.teardown(() => dir.remove());
  t.match(cli(["nats-auth", "--out", join(dir.path, "auth"), "--cluster"]).stderr, /unknown flag --cluster/, "a flag of another command is unknown here");
});

test("--help on a command prints its usage and exits 0 without running it", async (t) => {
  const { env, started } = upEnv(t);
  const up = cli(["up", "--help"], env);
  t.equal(up.status, 0, up.stderr);
  t.match(up.stdout, /usage: inquest up \[--cluster\]/);
  t.notOk(started(), "the stack was not started");
  const keys = cli(["keys", "create", "--help"]);
  t.equal(keys.status, 0);
  t.match(keys.stdout, /usage: inquest keys create --scopes/);
  const all = cli(["--help"]);
  t.equal(all.status, 0);
  t.match(all.stdout, /usage: inquest <command>/);
});

test("a flag that takes a value, given none, is refused (it was taken as unset)", async (t) => {
  const atEnd = cli(["keys", "create", "--scopes"]);
  t.equal(atEnd.status, 2);
  t.match(atEnd.stderr, /--scopes needs a value/);
  const beforeAnother = cli(["keys", "create", "--name", "--scopes", "investigations:read"]);
  t.equal(beforeAnother.status, 2);
  t.match(beforeAnother.stderr, /--name needs a value/);
  const dir = tempDir("inquest-cli-flags-out-");
  t.teardown(() => dir.remove());
  const booleanWithValue = cli(["nats-auth", "--out", join(dir.path, "auth"), "--fleet=yes"]);
  t.equal(booleanWithValue.status, 2);
  t.match(booleanWithValue.stderr, /--fleet takes no value/);
});

test("a single-dash option is refused, not folded into the question (flags are spelled --name)", async (t) => {
  // With a key and a gateway that is not there, a run would fail reaching it (exit 1); a usage error is exit 2.
  const env = { INQUEST_KEY: "inq_unused", INQUEST_URL: "http://127.0.0.1:1" };
  const short = cli(["investigate", "any cryptominers?", "-d", "deep"], env);
  t.equal(short.status, 2, short.stderr);
  t.match(short.stderr, /unknown flag -d\b/);
  t.match(short.stderr, /usage: inquest investigate/);
  const glued = cli(["investigate", "-mode=live", "q"], env);
  t.equal(glued.status, 2, glued.stderr);
  t.match(glued.stderr, /unknown flag -mode=live/);
  t.equal(cli(["keys", "list", "-x"]).status, 2, "every command");
  t.equal(cli(["investigate", "-h"]).status, 0, "-h is still help");
  const afterDashes = cli(["investigate", "--", "-rf in shell history?"], env);
  t.not(afterDashes.status, 2, `a question starting with - goes after --: ${afterDashes.stderr}`);
});

test("keys list and keys revoke refuse stray arguments and the flags of keys create; other commands stray arguments", async (t) => {
  // NATS that is not there: a command that ran would fail connecting, saying so; the usage error comes first.
  const nats = ["--nats", "nats://127.0.0.1:1"];
  const { env: upEnvironment, started } = upEnv(t);
  const cases: Array<[string[], RegExp]> = [
    [["keys", "list", "stray", ...nats], /keys list takes no arguments, got "stray"/],
    [["keys", "list", "--scopes", "investigations:read", ...nats], /--scopes is not a flag of keys list/],
    [["keys", "revoke", "key_1", "key_2", ...nats], /keys revoke takes one key id, got 2/],
    [["keys", "revoke", "key_1", "--name", "x", ...nats], /--name is not a flag of keys revoke/],
    [["keys", "create", "stray", "--scopes", "investigations:read", ...nats], /keys create takes no arguments, got "stray"/],
    [["up", "now"], /inquest up takes no arguments, got "now"/],
    [["fleet", "fleet.json", ...nats], /inquest fleet takes no arguments, got "fleet.json"/],
  ];
  for (const [argv, message] of cases) {
    const r = cli(argv, argv[0] === "up" ? upEnvironment : {});
    t.equal(r.status, 2, `${argv.join(" ")}: ${r.stderr}`);
    t.match(r.stderr, message, argv.join(" "));
    t.match(r.stderr, /usage: inquest /, `${argv.join(" ")} shows the usage`);
    t.notMatch(r.stderr, /cannot reach NATS/, `${argv.join(" ")} is refused before connecting`);
  }
  t.notOk(started(), "up with a stray argument started nothing");
});

test("agent and fleet hold --heartbeat to what the registry accepts (100ms..1h), before connecting", async (t) => {
  // No NATS anywhere (an empty data dir, no --nats): a heartbeat that passes gets as far as looking for NATS.
  const dir = tempDir("inquest-cli-flags-");
  t.teardown(() => dir.remove());
  const env = { INQUEST_DATA_DIR: dir.path };
  for (const [command, ...rest] of [["agent"], ["fleet", "--file", join(REPO, "examples", "fleet.json")]] as string[][]) {
    for (const bad of ["0s", "50ms", "2h", "soon"]) {
      const r = cli([command as string, ...rest, "--heartbeat", bad], env);
      t.equal(r.status, 2, `${command} --heartbeat ${bad}: ${r.stderr}`);
      t.match(r.stderr, /--heartbeat: expected a duration from 100ms to 1h/, `${command} --heartbeat ${bad}`);
      t.notMatch(r.stderr, /no NATS server/, `${command} --heartbeat ${bad} is refused before looking for NATS`);
    }
    for (const good of ["100ms", "1h"]) t.match(cli([command as string, ...rest, "--heartbeat", good], env).stderr, /no NATS server/, `${command} --heartbeat ${good} is taken`);
  }
});

test("a flag given twice is refused, not overwritten: --scope twice would quietly widen the run", async (t) => {
  const scope = cli(["investigate", "any listeners?", "--scope", "env=prod", "--scope", "role=web", "--url", "http://127.0.0.1:1", "--key", "k"]);
  t.equal(scope.status, 2, scope.stderr);
  t.match(scope.stderr, /--scope is given twice; give it once, with its items comma-separated/);
  const url = cli(["keys", "list", "--nats", "nats://127.0.0.1:1", "--nats=nats://127.0.0.1:2"]);
  t.equal(url.status, 2);
  t.match(url.stderr, /--nats is given twice; give it once$/m);
});

test("a key name with characters a terminal obeys is refused before anything is written", async (t) => {
  const escape = cli(["keys", "create", "--scopes", "investigations:read", "--name", "a\u001b[31mred", "--nats", "nats://127.0.0.1:1"]);
  t.equal(escape.status, 2, escape.stderr);
  t.match(escape.stderr, /--name must be 1-100 characters without control characters/);
  t.notMatch(escape.stderr, /connect|NATS/i, "refused before connecting");
  t.equal(cli(["keys", "create", "--scopes", "investigations:read", "--name", "x\u202eevil", "--nats", "nats://127.0.0.1:1"]).status, 2, "a bidi override too");
  for (const blank of ["", "   "]) {
    const r = cli(["keys", "create", "--scopes", "investigations:read", "--name", blank, "--nats", "nats://127.0.0.1:1"]);
    t.equal(r.status, 2, `--name ${JSON.stringify(blank)}: ${r.stderr}`);
    t.match(r.stderr, /--name (needs a value|must be 1-100 characters)/, "a blank name is no name (leave --name out for \"unnamed\")");
  }
});
