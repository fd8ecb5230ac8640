// Inbound webhook test helpers: endpoints, signed deliveries to the receiver over real HTTP, counting investigations.
import { createHmac } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { api, type ApiResponse, type Stack } from "./stack.js";

/** A well-formed URL key that no endpoint has. */
export const UNKNOWN_URL_KEY = "whk_AAAAAAAA_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";

export interface CreatedEndpoint {
  id: string;
  url: string;
  provider: string;
  url_key_prefix: string;
  /** The receiver path, relative to the base URL. */
  path: string;
  /** The URL key (the last path segment). */
  key: string;
}

export async function createEndpoint(stack: Stack, body: Record<string, unknown>): Promise<CreatedEndpoint> {
  const r = await api(stack.baseUrl, "POST", "/v1/webhooks/incoming/endpoints", { key: stack.key, body });
  if (r.status !== 201) throw new Error(`create endpoint: ${r.status} ${r.text}`);
  const url = r.json.url as string;
  const path = url.slice(stack.baseUrl.length);
  return { id: r.json.id, url, provider: r.json.provider, url_key_prefix: r.json.url_key_prefix, path, key: path.split("/").pop() as string };
}

/** POSTs exactly these bytes to a receiver path. */
export function deliver(stack: Stack, path: string, raw: string | Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api(stack.baseUrl, "POST", path, { rawBody: raw, headers: { "content-type": "application/json", ...headers } });
}

export async function githubHeaders(secret: string, raw: string, event: string, delivery: string): Promise<Record<string, string>> {
  return { "x-github-event": event, "x-github-delivery": delivery, "x-hub-signature-256": await sign(secret, raw), "user-agent": "GitHub-Hookshot/test" };
}

/** CrowdStrike-style headers, computed here independently of shared/signing.ts. */
export function edrHeaders(secret: string, raw: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = createHmac("sha256", secret).update(`${timestamp}.${raw}`).digest("base64");
  return { "x-cs-delivery-timestamp": String(timestamp), "x-cs-primary-signature": signature };
}

/** Every investigation id the list shows (all pages). */
export async function investigationIds(stack: Stack, filter = ""): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const q: string = `/v1/investigations?limit=200${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api(stack.baseUrl, "GET", q, { key: stack.key });
    if (page.status !== 200) throw new Error(`list investigations: ${page.status} ${page.text}`);
    ids.push(...(page.json.investigations as Array<{ investigation_id: string }>).map((i) => i.investigation_id));
    cursor = page.json.next_cursor;
    if (!cursor) break;
  }
  return ids;
}

export async function investigation(stack: Stack, id: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
  if (r.status !== 200) throw new Error(`get ${id}: ${r.status} ${r.text}`);
  return r.json;
}
