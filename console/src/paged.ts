// A list the API pages (docs/api.md#pagination) shown whole up to a bound: its pages are read one after another
// until the list ends or BOUND items are in hand; past that the page says how many it shows and "Load more <noun>"
// reads up to BOUND more. A reload (after a pause or a delete) reads again as many as were shown.
import { clear, h, notice, onClickOneAtATime, type Child } from "./dom.js";

/** Items read at load, and at each "Load more": 5 pages of the API's largest page (200). */
export const BOUND = 1000;
export const PAGE = 200;

export interface Page<T> {
  items: T[];
  next: string | null;
}

/** Pages from `from` until the list ends or `want` items are read. */
export async function readPages<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, want: number, from: string | null = null): Promise<Page<T>> {
  const items: T[] = [];
  let cursor = from;
  do {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.next;
  } while (cursor !== null && items.length < want);
  return { items, next: cursor };
}

export const count = (n: number): string => n.toLocaleString("en-US");

/**
 * The list's element and its load. `render` draws the items; a reply that a newer load made stale is dropped.
 * `noun` is plural ("subscriptions").
 */
export function pagedList<T>(noun: string, fetchPage: (cursor: string | null) => Promise<Page<T>>, render: (items: T[]) => Child): { el: HTMLElement; load: () => Promise<void> } {
  const list = h("div", {});
  const note = h("div", {});
  const more = h("button", { type: "button", class: "ghost", hidden: true }, `Load more ${noun}`);
  let items: T[] = [];
  let next: string | null = null;
  let generation = 0;
  const show = (): void => {
    clear(list, render(items));
    clear(note, next === null ? null : notice(`Showing the first ${count(items.length)} ${noun}; there are more.`, "info"));
    more.hidden = next === null;
  };
  const load = async (): Promise<void> => {
    const mine = ++generation;
    const page = await readPages(fetchPage, Math.max(BOUND, items.length));
    if (mine !== generation) return;
    items = page.items;
    next = page.next;
    show();
  };
  onClickOneAtATime(more, async () => {
    if (next === null) return;
    const mine = generation;
    const page = await readPages(fetchPage, BOUND, next);
    if (mine !== generation) return;
    items = [...items, ...page.items];
    next = page.next;
    show();
  });
  return { el: h("div", {}, list, note, more), load };
}
