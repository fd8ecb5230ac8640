// How each service is started: `node <its flags> dist/services/<name>/main.js`. One table for every launcher
// (`inquest up`, `make cluster` and chaos, the benches, the tests' stacks) and for the commands in deploy/, which
// test/unit/deploy-manifests.test.ts holds to it (docs/operations.md#memory).
import { join } from "node:path";

export const SERVICE_NAMES = ["gateway", "runner", "ticker", "dispatcher", "agent"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Node flags per service. `--max-semi-space-size=2` (MiB) keeps V8's young generation small where a service's
 * objects are either short-lived or kept for good: its default (16 MiB semi-spaces, up to 48 MiB of young
 * generation) was a third of the runner's and the ticker's heaps and mostly empty. Measured with `make
 * bench-curiosity` (100,000 items): ticker peak RSS 152 -> 121 MiB, lateness p99 22 -> 29 ms; `make bench-fleet`
 * (10,000 hosts): runner 329 -> 287 MiB. The gateway and the dispatcher keep V8's default: they allocate per
 * request at thousands a second, where a small young generation costs throughput.
 */
export const NODE_FLAGS: Record<ServiceName, readonly string[]> = {
  gateway: [],
  runner: ["--max-semi-space-size=2"],
  ticker: ["--max-semi-space-size=2"],
  dispatcher: [],
  agent: [],
};

/** The arguments after `node` that start service `name`, its compiled code under `distDir`. */
export function serviceArgs(name: ServiceName, distDir: string): string[] {
  return [...NODE_FLAGS[name], join(distDir, "services", name, "main.js")];
}
