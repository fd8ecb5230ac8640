// SIGHUP (the terminal a service runs in closed, an ssh session dropped) stops a service as SIGTERM does: it exits 0
// after its clean stop, and an agent says bye, so its host goes offline at once rather than after three missed
// heartbeats. Node's default for SIGHUP is to die on the spot.
import { test } from "tap";
import { api, eventually, startStack } from "../helpers/stack.js";

const FLEET = { agents: [{ agent_id: "hup-1", hostname: "hup-1.prod", tags: { env: "prod" } }] };

test("SIGHUP: an agent says bye and exits 0; the gateway, runner, ticker and dispatcher exit 0", async (t) => {
  // Heartbeats a minute apart: an agent that died without its bye would stay online for three minutes.
  const stack = await startStack({ fleet: FLEET, env: { INQUEST_HEARTBEAT_INTERVAL: "60s" } });
  t.teardown(() => stack.stop());
  const status = async (): Promise<string | undefined> => {
    const r = await api(stack.baseUrl, "GET", "/v1/agents", { key: stack.key });
    return (r.json.agents as Array<{ agent_id: string; status: string }>).find((a) => a.agent_id === "hup-1")?.status;
  };
  await eventually(async () => ((await status()) === "online" ? true : undefined));
  const agent = stack.services.get("agent");
  t.ok(agent, "the fleet runs");
  t.equal(await agent?.kill("SIGHUP"), 0, "the agent exits 0 on SIGHUP");
  t.equal(await eventually(async () => ((await status()) === "offline" ? "offline" : undefined), 10_000), "offline", "its bye took it offline at once");

  for (const name of ["ticker", "dispatcher"] as const) stack.start(name);
  for (const name of ["ticker", "dispatcher", "runner", "gateway"]) {
    const p = stack.services.get(name);
    await p?.ready();
    t.equal(await p?.kill("SIGHUP"), 0, `${name} exits 0 on SIGHUP`);
  }
});
