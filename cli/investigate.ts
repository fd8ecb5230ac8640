// inquest investigate "<question>": triggers, shows progress until done, then prints the report.
import type { components, paths } from "./api-types.js";
import { flag, UsageError, type Args } from "./args.js";
import { callGateway, jsonBody, UnreachableError, type Answer } from "./gateway-call.js";
import { DEPTHS, MODES } from "../shared/inbound/providers/types.js";
import { hasCredentials } from "../shared/net.js";
import { gatewayUrlFromDataDir } from "./nats-url.js";
import { terminalLine, terminalLines } from "./terminal-text.js";

// The API's own types, generated from openapi.json (cli/api-types.ts, docs/api.md#openapi).
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Detail = Json<paths["/v1/investigations/{id}"]["get"]["responses"][200]>;
type Created = Json<paths["/v1/investigations"]["post"]["responses"][202]>;
type ErrorBody = components["schemas"]["ErrorBody"];

export async function investigateCommand(args: Args, env: NodeJS.ProcessEnv): Promise<number> {
  const question = args.positionals.slice(1).join(" ").trim();
  if (!question) throw new UsageError('usage: inquest investigate "<question>" [--scope k=v] [--depth d] [--mode m] [--url U --key K]');
  const url = gatewayBase(flag(args, "url") ?? env.INQUEST_URL ?? gatewayUrlFromDataDir(env) ?? "http://127.0.0.1:8080");
  const key = flag(args, "key") ?? env.INQUEST_KEY;
  if (!key) throw new UsageError("an API key is needed: --key K or INQUEST_KEY (make run prints one)");
  const body: Record<string, unknown> = { query: question };
  const depth = flag(args, "depth");
  const mode = flag(args, "mode");
  if (depth !== undefined && !DEPTHS.some((d) => d === depth)) throw new UsageError(`--depth is one of ${DEPTHS.join(", ")}, got ${depth}`);
  if (mode !== undefined && !MODES.some((m) => m === mode)) throw new UsageError(`--mode is one of ${MODES.join(", ")}, got ${mode}`);
  if (depth) body.depth = depth;
  if (mode) body.mode = mode;
  const scope = flag(args, "scope");
  if (scope) {
    const tags: Record<string, string> = {};
    for (const pair of scope.split(",")) {
      const [k, ...v] = pair.split("=");
      if (!k || v.length === 0) throw new UsageError(`--scope takes k=v[,k2=v2], got ${scope}`);
      tags[k] = v.join("=");
    }
    body.scope = { type: "selector", filter: { tags } };
  }
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const res = await callGateway("POST", `${url}/v1/investigations`, headers, JSON.stringify(body));
  const answer = jsonBody<Partial<Created> & Partial<ErrorBody>>(res);
  if (res.status !== 202 || !answer.investigation_id) {
    // What was wrong, field by field (a question too long, a scope the API refuses), not only "not valid".
    const details = (answer.error?.details ?? []).map((d) => `\n  ${terminalLine(`${d.path}: ${d.message}`)}`).join("");
    process.stderr.write(`inquest: ${res.status} ${answer.error?.message ?? "unexpected answer"}${details}\n`);
    return 1;
  }
  const id = answer.investigation_id;
  process.stderr.write(`investigation ${id}\n`);
  let retries = 0;
  for (;;) {
    let r: Answer;
    try {
      r = await callGateway("GET", `${url}/v1/investigations/${id}`, headers);
    } catch (err) {
      if (!(err instanceof UnreachableError)) throw err;
      if (retries >= FOLLOW_RETRIES) {
        process.stderr.write(`\ninquest: cannot follow ${id}: ${err.message}\n`);
        return 1;
      }
      await pause(err.message, null, ++retries);
      continue;
    }
    if (r.status !== 200) {
      const e = (r.body ?? {}) as Partial<ErrorBody>;
      const said = `${r.status} ${e.error?.message ?? r.notJson ?? ""}`;
      if (PASSING.has(r.status) && retries < FOLLOW_RETRIES) {
        await pause(said, r.retryAfterMs, ++retries);
        continue;
      }
      // Only a 403 is about the key's scopes; a 401 (unknown or revoked key) or 404 has nothing to do with them.
      process.stderr.write(`\ninquest: cannot follow ${id}: ${said}${r.status === 403 ? " (the key needs investigations:read)" : ""}\n`);
      return 1;
    }
    retries = 0;
    const d = jsonBody<Detail>(r);
    drawProgress(d);
    if (["completed", "failed", "cancelled"].includes(d.status)) {
      process.stderr.write("\n");
      printReport(d);
      return d.status === "completed" ? 0 : 1;
    }
    await new Promise((r2) => setTimeout(r2, 300));
  }
}

/**
 * Answers that pass (rate limited, unavailable while NATS reconnects, a proxy between gateway replicas) and a
 * connection that fails are retried this many times in a row while following: the run goes on in the service, so
 * one 503 during a rolling restart should not end the follow.
 */
const FOLLOW_RETRIES = 5;
const PASSING = new Set([429, 502, 503, 504]);
/** The wait without a Retry-After doubles from this; a Retry-After is honoured up to the cap (and at least the floor). */
const RETRY_BASE_MS = 500;
const RETRY_FLOOR_MS = 250;
const RETRY_CAP_MS = 30_000;

async function pause(why: string, retryAfterMs: number | null, attempt: number): Promise<void> {
  const ms = Math.min(RETRY_CAP_MS, Math.max(RETRY_FLOOR_MS, retryAfterMs ?? RETRY_BASE_MS * 2 ** (attempt - 1)));
  process.stderr.write(`\ninquest: ${why}; retrying in ${ms >= 1000 ? `${Math.round(ms / 1000)}s` : `${ms}ms`} (${attempt} of ${FOLLOW_RETRIES})\n`);
  await new Promise((r) => setTimeout(r, ms));
}

function drawProgress(d: Detail): void {
  const total = d.progress?.plans_total ?? 0;
  const done = d.progress?.plans_completed ?? 0;
  const width = 30;
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  process.stderr.write(`\r[${bar}] ${done}/${total} ${d.progress?.phase ?? d.status}`.padEnd(70));
}

function printReport(d: Detail): void {
  // Findings quote what agents collected: every text goes through terminal-text.ts, never to the terminal as it is.
  if (d.status !== "completed") {
    process.stdout.write(`status: ${d.status}${d.error ? ` (${terminalLine(d.error.message)})` : ""}\n`);
    return;
  }
  const narrative = d.summary?.narrative ?? "";
  process.stdout.write(`severity: ${d.summary?.severity}  verdict: ${d.summary?.verdict}\n\n${terminalLines(narrative)}\n`);
  // The narrative lists the first few findings itself; the rest of those the detail carries follow it, once each.
  const rest = d.findings.filter((f) => !narrative.includes(`- [${f.severity}] ${f.title} on ${f.hostname} (confidence `));
  if (rest.length > 0) {
    process.stdout.write(`\n${rest.length === d.findings.length ? "Findings" : "More findings"}:`);
    for (const f of rest) process.stdout.write(`\n- [${f.severity}] ${terminalLine(`${f.title} on ${f.hostname}: ${f.summary}`)}`);
    process.stdout.write("\n");
  }
  if (d.findings_total > d.findings.length) {
    process.stdout.write(`\n${d.findings_total} findings in all, ${d.findings.length} shown; every one: GET /v1/investigations/${d.investigation_id}/findings\n`);
  }
}

/**
 * The gateway's base URL, checked before any call: an http(s) URL without credentials. fetch refuses a URL with
 * user:password in it, and its error (with ours) printed the whole URL, password included, to stderr and any CI log;
 * a URL without a scheme failed as "unknown scheme" against "null". Neither message ever shows the credentials.
 */
function gatewayBase(raw: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    /* said below */
  }
  if (parsed !== null && hasCredentials(parsed)) {
    throw new UsageError(`--url / INQUEST_URL must not carry credentials (${parsed.protocol}//***@${parsed.host}): the API key goes in --key or INQUEST_KEY`);
  }
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UsageError(`--url / INQUEST_URL: ${JSON.stringify(raw.replace(/\/\/[^/@]*@/, "//***@"))} is not an http:// or https:// URL (e.g. http://127.0.0.1:8080)`);
  }
  return raw.replace(/\/+$/, "");
}
