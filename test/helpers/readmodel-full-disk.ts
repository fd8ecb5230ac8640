// Run by readmodel-full-disk.test.ts under `ulimit -f`: a read model follows a bucket of documents larger than the
// file may grow, so its commits fail as on a full disk. Prints "failed writes: N" and "alive" when it outlived them.
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { pino } from "pino";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel } from "../../shared/readmodel.js";

process.on("SIGXFSZ", () => {}); // past the limit a write fails with EFBIG (the signal would kill the process)
const [url, dir, bucket] = process.argv.slice(2) as [string, string, string];
let failures = 0;
const log = pino({ level: "error" }, { write: (line: string) => void (line.includes("read model write failed") && failures++) });
const nc = await connect({ servers: url });
const kv = await new Kvm(nc).create(bucket, { history: 1 });
const store = new LocalStore(dir, { mappedBudgetBytes: 0, log, bootId: "test" });
const model = new ReadModel<{ n: number; big: string }, { n: number; big: string }>(store, kv, { name: "full", indexKeys: (d: { n: number }) => [["all", d.n, `k${d.n}`]] } as never, log);
await model.start();
const big = "x".repeat(200_000);
for (let n = 0; n < 40; n++) await kv.put(`k${n}`, JSON.stringify({ n, big }));
for (let i = 0; i < 100 && failures === 0; i++) await new Promise((r) => setTimeout(r, 50));
await new Promise((r) => setTimeout(r, 500)); // any unhandled rejection would have ended the process by now
process.stdout.write(`failed writes: ${failures}\nalive\n`);
await model.stop();
await nc.close();
process.exit(0);
