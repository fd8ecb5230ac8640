// Following a KV bucket: the current value of every key, then every change, until stopped.
// `ready` resolves once the initial values have been delivered.
import type { KV } from "@nats-io/kv";
import type { Logger } from "../log.js";
import { decodeJson } from "./kvjson.js";

export interface Follower {
  ready: Promise<void>;
  stop(): Promise<void>;
}

export async function followBucket<T>(
  kv: KV,
  log: Logger,
  onEntry: (key: string, revision: number, value: T | null) => void,
  opts: { resumeFromRevision?: number } = {},
): Promise<Follower> {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  const resuming = (opts.resumeFromRevision ?? 0) > 0;
  const status = await kv.status();
  if (resuming ? status.streamInfo.state.last_seq < (opts.resumeFromRevision ?? 0) : status.values === 0) markReady();
  const iter = await kv.watch(resuming ? { resumeFromRevision: opts.resumeFromRevision as number } : {});
  let stopped = false;
  const done = (async () => {
    for await (const e of iter) {
      const value = e.operation === "PUT" && e.value.length > 0 ? decodeJson<T>(e.value) : null;
      onEntry(e.key, e.revision, value);
      if (e.isUpdate) markReady();
    }
  })().catch((err: unknown) => {
    if (!stopped) log.error({ err, bucket: status.bucket }, "stopped following a bucket");
  });
  return {
    ready,
    async stop() {
      stopped = true;
      iter.stop();
      markReady();
      await done;
    },
  };
}
