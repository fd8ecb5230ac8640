// The steady load of a chaos run, as well-behaved clients send it: investigations triggered with an
// Idempotency-Key and retried (same key, the other gateway, after Retry-After) until accepted; inbound posts on a
// generic endpoint with an idempotency_key, retried the same way. Every answer is recorded: a 5xx other than 503
// with Retry-After is a violation.
import { randomUUID } from "node:crypto";
import { sleep } from "../../shared/clock.js";

export interface Call {
  at: number;
  ms: number;
  status: number;
  retryAfter: string | null;
}

export interface LoadStats {
  /** Investigation ids the service accepted (202), from the API and from inbound posts. */
  accepted: Set<string>;
  calls: Call[];
  /** Answers that break the rule: 5xx other than 503, or 503 without Retry-After. */
  violations: string[];
  /** Requests given up on after every retry (never accepted): counted as lost. */
  abandoned: number;
}

export interface LoadOptions {
  gateways: string[];
  key: string;
  inboundPath: string;
  triggerEveryMs: number;
  inboundEveryMs: number;
}

/** Runs until `signal` aborts; resolves with what it saw once every request in flight settled. */
export async function runLoad(opts: LoadOptions, signal: AbortSignal): Promise<LoadStats> {
  const stats: LoadStats = { accepted: new Set(), calls: [], violations: [], abandoned: 0 };
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  const every = (ms: number, fire: () => Promise<void>) =>
    (async () => {
      while (!signal.aborted) {
        const p = fire().catch(() => undefined);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        await sleep(ms);
      }
    })();
  const trigger = () => {
    const i = n++;
    const live = i % 5 === 0;
    const body = { query: "are any prod hosts running processes that listen on unexpected ports?", mode: live ? "live" : "cached", depth: "quick" };
    return untilAccepted(opts, stats, i, (gw) => post(gw, "/v1/investigations", body, { authorization: `Bearer ${opts.key}`, "idempotency-key": randomKey(i) }));
  };
  const inbound = () => {
    const i = n++;
    const body = { query: "inbound: any cryptominers on prod?", mode: "cached", depth: "quick", idempotency_key: randomKey(i) };
    return untilAccepted(opts, stats, i, (gw) => post(gw, opts.inboundPath, body, {}));
  };
  await Promise.all([every(opts.triggerEveryMs, trigger), every(opts.inboundEveryMs, inbound)]);
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  return stats;
}

const keys = new Map<number, string>();
function randomKey(i: number): string {
  let k = keys.get(i);
  if (!k) keys.set(i, (k = `chaos-${randomUUID()}`));
  return k;
}

/** Retries one request across the gateways until it is accepted, for at most 90 s. */
async function untilAccepted(opts: LoadOptions, stats: LoadStats, i: number, send: (gw: string) => Promise<{ status: number; retryAfter: string | null; json: unknown }>): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const gw = opts.gateways[(i + attempt) % opts.gateways.length] as string;
    const started = performance.now();
    let r: { status: number; retryAfter: string | null; json: unknown };
    try {
      r = await send(gw);
    } catch {
      r = { status: 0, retryAfter: null, json: null }; // connection refused: that gateway is down; try the other
    }
    stats.calls.push({ at: Date.now(), ms: performance.now() - started, status: r.status, retryAfter: r.retryAfter });
    if (r.status === 202 || r.status === 200) {
      const id = (r.json as { investigation_id?: unknown } | null)?.investigation_id;
      if (typeof id === "string") {
        stats.accepted.add(id);
        return;
      }
      // Inbound answers 202 with `error` when it could not queue: a provider would retry.
    } else if (r.status >= 500 && !(r.status === 503 && r.retryAfter !== null)) {
      stats.violations.push(`${r.status} from ${gw} (retry-after ${r.retryAfter})`);
    }
    const wait = r.retryAfter !== null ? Math.min(Number(r.retryAfter) * 1000, 5_000) : 250;
    await sleep(Number.isFinite(wait) ? wait : 250);
  }
  stats.abandoned++;
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; retryAfter: string | null; json: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, retryAfter: res.headers.get("retry-after"), json };
}
