// Bounded concurrency for independent jobs: at most `limit` run at once, in the items' order; the first failure
// (a job's, or the items' own when they are produced asynchronously) is thrown once every started job has settled
// (none is left running behind the caller's back).

export async function forEachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, job: (item: T) => Promise<void>): Promise<void> {
  // Each worker asks for the next item when free: from a list, or as items are made (a stream read a page at a time).
  const it = Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  const workers = Array.isArray(items) ? Math.min(limit, items.length) : limit;
  let failed: { err: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failed === null) {
      let next: IteratorResult<T>;
      try {
        const asked = it.next();
        next = asked instanceof Promise ? await asked : asked;
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
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
  if (failed !== null) throw (failed as { err: unknown }).err;
}
