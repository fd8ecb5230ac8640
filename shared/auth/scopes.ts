export const SCOPES = ["curiosity:read", "curiosity:write", "investigations:read", "investigations:trigger", "webhooks:manage"] as const;
export type ApiScope = (typeof SCOPES)[number];

export function parseScopes(text: string): ApiScope[] | string {
  const parts = text.split(",").map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) return `no scopes given; choose from ${SCOPES.join(", ")}`;
  const bad = parts.filter((p) => !(SCOPES as readonly string[]).includes(p));
  if (bad.length > 0) return `unknown scope(s) ${bad.join(", ")}; choose from ${SCOPES.join(", ")}`;
  return [...new Set(parts)] as ApiScope[];
}
