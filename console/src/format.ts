// Times, durations and scopes as people read them.
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${span(Math.abs(now - t) / 1000)} ${now >= t ? "ago" : "from now"}`;
}

export function span(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.round(seconds / 360) / 10} h`;
  return `${Math.round(seconds / 8640) / 10} d`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export interface Scope {
  type: "selector";
  filter: { tags?: Record<string, string>; agent_ids?: string[] };
}

export function scopeText(scope: Scope | null | undefined): string {
  if (!scope) return "every agent";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(scope.filter.tags ?? {})) parts.push(`${k}=${v}`);
  if (scope.filter.agent_ids?.length) parts.push(`agents: ${scope.filter.agent_ids.join(", ")}`);
  return parts.length ? parts.join(", ") : "every agent";
}

/** "env=prod, role=web" -> {env: "prod", role: "web"}; a malformed pair is an error message. */
export function parseTags(text: string): Record<string, string> | string {
  const tags: Record<string, string> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf("=");
    if (i <= 0) return `"${part}" is not key=value`;
    tags[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return tags;
}

export function buildScope(tags: Record<string, string>, agentIds: string[]): Scope | undefined {
  const filter: Scope["filter"] = {};
  if (Object.keys(tags).length) filter.tags = tags;
  if (agentIds.length) filter.agent_ids = agentIds;
  return Object.keys(filter).length ? { type: "selector", filter } : undefined;
}

export const TERMINAL = new Set(["completed", "failed", "cancelled"]);
