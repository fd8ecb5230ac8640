// Bounded concurrency for independent jobs: at most `limit` run at once, in the items' order; the first failure
// (a job's, or the items' own when they are produced asynchronously) is thrown once every started job has settled
// (none is left running behind the caller's back).

export async function forEachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, job: (item: T) => Promise<void>): Promise<void> {
  if (Array.isArray(items)) return forEachOfArray(items as readonly T[], limit, job);
  // Items made as they are asked for (a stream read a page at a time): each worker asks for the next when free.
  const it = Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  let failed: { err: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failed === null) {
      let next: IteratorResult<T>;
      try {
        next = await it.next();
      } catch (err) {
        failed ??= { err };
        return;
      }
      if (next.done) return;
      try {
        await job(next.value);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  if (failed !== null) throw (failed as { err: unknown }).err;
}

async function forEachOfArray<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failed === null && next < items.length) {
      const item = items[next++] as T;
      try {
        await job(item);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed !== null) throw (failed as { err: unknown }).err;
}
