// Bounded concurrency for a list of independent jobs: at most `limit` run at once, in list order; the first
// failure is thrown once every started job has settled (none is left running behind the caller's back).

export async function forEachLimited<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
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
