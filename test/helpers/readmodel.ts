// Looking into a read model's LMDB writes (shared/readmodel.ts) from tests.
import type { ReadModel } from "../../shared/readmodel.js";

/**
 * Counts every index entry the model writes and removes from now on, at its LMDB sub-database, until its store
 * reopens (which gives the model a new IndexStore: use it with a store without a budget).
 */
export function countIndexWrites<T, S>(model: ReadModel<T, S>): { put: number; remove: number } {
  const index = (model as unknown as { index: { put: (...a: unknown[]) => unknown; remove: (...a: unknown[]) => unknown } }).index;
  const writes = { put: 0, remove: 0 };
  const put = index.put.bind(index);
  const remove = index.remove.bind(index);
  index.put = (...a: unknown[]) => (writes.put++, put(...a));
  index.remove = (...a: unknown[]) => (writes.remove++, remove(...a));
  return writes;
}
