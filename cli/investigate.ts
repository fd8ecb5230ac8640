// inquest investigate "<question>": triggers, shows progress until done, then prints the report.
import type { components, paths } from "./api-types.js";
import { flag, UsageError, type Args } from "./args.js";
import { callGateway, jsonBody } from "./gateway-call.js";

// The API's own types, generated from openapi.json (cli/api-types.ts, docs/api.md#openapi).
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Detail = Json<paths["/v1/investigations/{id}"]["get"]["responses"][200]>;
type Created = Json<paths["/v1/investigations"]["post"]["responses"][202]>;
type ErrorBody = components["schemas"]["ErrorBody"];

export async function investigateCommand(args: Args, env: NodeJS.ProcessEnv): Promise<number> {
  const question = args.positionals.slice(1).join(" ").trim();
  if (!question) throw new UsageError('usage: inquest investigate "<question>" [--scope k=v] [--depth d] [--mode m] [--url U --key K]');
  const url = (flag(args, "url") ?? env.INQUEST_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  const key = flag(args, "key") ?? env.INQUEST_KEY;
  if (!key) throw new UsageError("an API key is needed: --key K or INQUEST_KEY (make run prints one)");
  const body: Record<string, unknown> = { query: question };
  const depth = flag(args, "depth");
  const mode = flag(args, "mode");
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
    process.stderr.write(`inquest: ${res.status} ${answer.error?.message ?? "unexpected answer"}\n`);
    return 1;
  }
  const id = answer.investigation_id;
  process.stderr.write(`investigation ${id}\n`);
  for (;;) {
    const r = await callGateway("GET", `${url}/v1/investigations/${id}`, headers);
    if (r.status !== 200) {
      const e = (r.body ?? {}) as Partial<ErrorBody>;
      process.stderr.write(`\ninquest: cannot follow ${id}: ${r.status} ${e.error?.message ?? ""} (the key needs investigations:read)\n`);
      return 1;
    }
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

function drawProgress(d: Detail): void {
  const total = d.progress?.plans_total ?? 0;
  const done = d.progress?.plans_completed ?? 0;
  const width = 30;
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  process.stderr.write(`\r[${bar}] ${done}/${total} ${d.progress?.phase ?? d.status}`.padEnd(70));
}

function printReport(d: Detail): void {
  if (d.status !== "completed") {
    process.stdout.write(`status: ${d.status}${d.error ? ` (${d.error.message})` : ""}\n`);
    return;
  }
  process.stdout.write(`severity: ${d.summary?.severity}  verdict: ${d.summary?.verdict}\n\n${d.summary?.narrative ?? ""}\n`);
  for (const f of d.findings) process.stdout.write(`\n- [${f.severity}] ${f.title} on ${f.hostname}: ${f.summary}`);
  process.stdout.write("\n");
}
