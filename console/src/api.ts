// Every call goes through the public API with the key kept in sessionStorage (never in a URL).
const KEY = "inquest.apiKey";

export interface Whoami {
  key_id: string;
  name: string;
  display_prefix: string;
  scopes: string[];
}

export class ApiError extends Error {
  constructor(
    /** 0 when no answer came (the connection failed). */
    readonly status: number,
    readonly code: string,
    message: string,
    /** The answer's Retry-After, in seconds (null when absent or unreadable). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** Retry-After as seconds from now: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  save: (key: string): void => sessionStorage.setItem(KEY, key),
  clear: (): void => sessionStorage.removeItem(KEY),
};

let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export async function call<T>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
  } catch {
    // fetch says only "Failed to fetch": no answer came (the gateway down or restarting, the network gone).
    throw new ApiError(0, "network_error", "the gateway could not be reached (no answer)");
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> } } | null)?.error;
    if (res.status === 401) onUnauthorized();
    const details = (err?.details ?? []).map((d) => `${d.path || "body"}: ${d.message}`).join("; ");
    throw new ApiError(res.status, err?.code ?? "http_error", `${err?.message ?? `HTTP ${res.status}`}${details ? ` (${details})` : ""}`, retryAfterSeconds(res.headers.get("retry-after")));
  }
  return json as T;
}

export function qs(params: Record<string, string | number | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const enc = encodeURIComponent;

/** The caller's scopes, learned once after sign-in (GET /v1/auth/whoami). */
let me: Whoami | null = null;
export const who = {
  get: (): Whoami | null => me,
  set: (w: Whoami | null): void => {
    me = w;
  },
  can: (scope: string): boolean => me?.scopes.includes(scope) ?? false,
};
