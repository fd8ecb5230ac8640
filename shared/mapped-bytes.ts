// How much of a file this process holds mapped in memory: the resident pages (`Rss:`) of its mappings in
// /proc/self/smaps. Linux only; elsewhere (or when /proc cannot be read) the answer is null.
import { readFile } from "node:fs/promises";

/** Resident bytes of every mapping of `file` (an absolute path, as the kernel names it), or null when unknown. */
export async function mappedBytes(file: string): Promise<number | null> {
  let smaps: string;
  try {
    smaps = await readFile("/proc/self/smaps", "utf8");
  } catch {
    return null;
  }
  return residentOf(smaps, file);
}

/** The sum of the `Rss:` lines of the mappings of `file` in an smaps text. */
export function residentOf(smaps: string, file: string): number {
  let kb = 0;
  const suffix = ` ${file}\n`;
  for (let at = smaps.indexOf(suffix); at !== -1; at = smaps.indexOf(suffix, at + suffix.length)) {
    // The mapping's header line ends with the path; its fields follow, Rss among the first few.
    const rss = smaps.indexOf("\nRss:", at);
    if (rss === -1) break;
    const end = smaps.indexOf("\n", rss + 1);
    kb += Number.parseInt(smaps.slice(rss + 5, end === -1 ? undefined : end), 10) || 0;
  }
  return kb * 1024;
}
