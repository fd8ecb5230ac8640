// Agents: online/offline, tags, last seen and snapshot age, a page at a time.
import { call, qs } from "../api.js";
import { ago } from "../format.js";
import { badge, clear, h, notice, onClickOneAtATime, table } from "../dom.js";
import type { Agent } from "../types.js";

export async function agentsPage(root: HTMLElement): Promise<void> {
  const list = h("div", {});
  const more = h("button", { type: "button", class: "ghost" }, "Load more");
  const shown: Agent[] = [];
  let cursor: string | null = null;
  const load = async (): Promise<void> => {
    const page = await call<{ agents: Agent[]; next_cursor: string | null }>("GET", `/v1/agents${qs({ cursor, limit: 100 })}`);
    shown.push(...page.agents);
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    const online = shown.filter((a) => a.status === "online").length;
    clear(
      list,
      h("p", { class: "muted" }, `${shown.length} agent(s), ${online} online.`),
      shown.length
        ? table(
            ["Hostname", "Agent id", "Status", "Tags", "Last seen", "Snapshot age"],
            shown.map((a) => [
              h("strong", { class: "host" }, a.hostname),
              h("code", {}, a.agent_id),
              badge(a.status),
              h("span", { class: "chips" }, ...Object.entries(a.tags).map(([k, v]) => h("span", { class: "chip" }, `${k}=${v}`))),
              h("time", { datetime: a.last_seen_at ?? "", title: a.last_seen_at ?? "" }, ago(a.last_seen_at)),
              a.snapshot_collected_at ? h("time", { datetime: a.snapshot_collected_at, title: a.snapshot_collected_at }, ago(a.snapshot_collected_at).replace(/ ago$/, "")) : "no snapshot",
            ]),
          )
        : notice("No agents registered yet.", "info"),
    );
  };
  // One page at a time: a double click asked for the same cursor twice and listed its agents twice.
  onClickOneAtATime(more, load);
  root.append(h("h1", {}, "Agents"), list, more);
  await load();
}
