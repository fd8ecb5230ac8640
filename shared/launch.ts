// How each service is started: `node <its flags> dist/services/<name>/main.js`. One table for every launcher
// (`inquest up`, `make cluster` and chaos, the benches, the tests' stacks) and for the commands in deploy/, which
// test/unit/deploy-manifests.test.ts holds to it (docs/operations.md#memory).
import { join } from "node:path";

export const SERVICE_NAMES = ["gateway", "runner", "ticker", "dispatcher", "agent"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Node flags per service. `--max-semi-space-size` (MiB) caps V8's young generation (default: 16 MiB semi-spaces,
 * up to 48 MiB of young generation), which was a third of the ticker's and the runner's heaps and mostly empty.
 * - ticker, 2: `make bench-curiosity` (100,000 items) peak RSS 152 -> 121 MiB, lateness p99 22 -> 29 ms.
 * - runner, 2: `make bench-fleet` (10,000 hosts, interleaved with 8, 2026-11-27, with its heap growth at 20 %:
 *   services/runner/config.ts) peak RSS 235-239 -> 183-194 MiB, live p50 0.69-0.77 -> 0.87-0.97 s (target 2 s).
 *   More of a run's short-lived objects outlive a small young generation and are promoted, so a run costs more
 *   collections; in exchange the young generation stops holding garbage. (8 was chosen on 2026-11-26, when runs took
 *   1.9 s and 2 made them 10-25 % slower.)
 * - gateway, 8: the HTTP bench's POST load (about 7,000 a second, 2026-11-27, three interleaved pairs) peak RSS
 *   155-158 -> 135-144 MiB, requests per second and gateway CPU per POST the same within noise (6,773-7,354 against
 *   6,344-7,447 req/s); GET the same.
 * The dispatcher keeps V8's default.
 */
export const NODE_FLAGS: Record<ServiceName, readonly string[]> = {
  gateway: ["--max-semi-space-size=8"],
  runner: ["--max-semi-space-size=2"],
  ticker: ["--max-semi-space-size=2"],
  dispatcher: [],
  agent: [],
};

/**
 * Environment each service starts with, under whatever the operator sets (which wins). `GLIBC_TUNABLES` for the
 * runner fixes glibc's mmap threshold at its initial 128 KiB: glibc raises the threshold each time a large mmapped
 * block is freed, after which blocks of that size come from the heap arenas and stay resident (the runner's engine
 * threads exchange batches of ~100 KiB and findings chunks). `make bench-fleet` (10,000 hosts, 2026-11-28, interleaved,
 * the machine shared): runner peak RSS 148-154 MiB without, 143-148 with; in exchange the runner's system CPU time
 * rose by a third (1.5-2 s over the bench: the kernel maps, zeroes and unmaps those blocks), its user time the same,
 * live p50 the same within the machine's noise. Read by the C library at process start, so only a launcher can set
 * it; an operator who prefers the CPU sets GLIBC_TUNABLES to "" (or anything else). musl (Alpine) ignores it.
 */
export const SERVICE_ENV: Record<ServiceName, Readonly<Record<string, string>>> = {
  gateway: {},
  runner: { GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" },
  ticker: {},
  dispatcher: {},
  agent: {},
};

/** `env` over service `name`'s own environment (SERVICE_ENV): what the caller sets wins. */
export function serviceEnv(name: ServiceName, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = { ...SERVICE_ENV[name] };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The arguments after `node` that start service `name`, its compiled code under `distDir`. */
export function serviceArgs(name: ServiceName, distDir: string): string[] {
  return [...NODE_FLAGS[name], join(distDir, "services", name, "main.js")];
}
