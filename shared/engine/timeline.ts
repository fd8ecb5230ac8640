// Dated events from the evidence rows: process starts, logins, history entries.
import { compareText } from "./order.js";
import { num, str } from "./rows.js";
import type { EngineFinding, TimelineEvent } from "./types.js";

function iso(epochSeconds: number | undefined): string | undefined {
  if (epochSeconds === undefined || epochSeconds <= 0 || epochSeconds > 32503680000) return undefined;
  return new Date(Math.round(epochSeconds) * 1000).toISOString();
}

export function buildTimeline(findings: readonly EngineFinding[]): TimelineEvent[] {
  const events = new Map<string, TimelineEvent>();
  for (const f of findings) {
    for (const { table, row } of f.evidence) {
      let time: string | undefined;
      let event = "";
      if (table === "processes") {
        time = iso(num(row, "start_time"));
        event = `process ${str(row, "name") || str(row, "path")} (pid ${str(row, "pid")}) started`;
      } else if (table === "last" || table === "logged_in_users") {
        time = iso(num(row, "time"));
        event = `${str(row, table === "last" ? "username" : "user")} logged in from ${str(row, "host") || "local"} (${str(row, "tty") || "?"})`;
      } else if (table === "shell_history") {
        time = iso(num(row, "time"));
        event = `uid ${str(row, "uid")} ran: ${str(row, "command").slice(0, 80)}`;
      }
      if (time === undefined) continue;
      const key = `${time}|${f.agent_id}|${event}`;
      if (!events.has(key)) events.set(key, { time, agent_id: f.agent_id, hostname: f.hostname, event, detection_id: f.detection_id });
    }
  }
  return [...events.values()].sort((a, b) => compareText(a.time, b.time) || compareText(a.agent_id, b.agent_id) || compareText(a.event, b.event));
}
