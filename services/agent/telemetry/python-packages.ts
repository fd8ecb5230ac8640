// python_packages: distributions installed for the system's Pythons and in users' ~/.local, read from each one's
// core metadata (`<name>-<version>.dist-info/METADATA`, `.egg-info/PKG-INFO` or an `.egg-info` file), as osquery
// does. A compromised release on PyPI (ultralytics 8.3.41 carried a miner) is seen here by name and version.
import * as path from "node:path";
import { homes, readDirUpTo, readHeadLines, realPath, type Ctx, type OpenOptions, type Row } from "./util.js";

/** Where the system's Pythons keep distributions: <lib>/python3.X/{site,dist}-packages, and Debian's python3. */
const LIB_DIRS = ["/usr/lib", "/usr/lib64", "/usr/local/lib", "/usr/local/lib64"];
const PACKAGE_DIRS = ["site-packages", "dist-packages"];
/** Core metadata headers come first; a description after them can be long and is never read. */
const METADATA_BYTES = 64 * 1024;
/** Python installations looked at under one lib directory, and entries read per site-packages directory. */
const PYTHONS_PER_LIB = 16;

interface SiteDir {
  directory: string;
  /** The account whose ~/.local it is (its files are read only if theirs or root's), or undefined for the system. */
  user?: { uid: number; realHome: string };
}

/** The headers of a core metadata file (RFC 822 style) up to the first blank line. */
export function parseCoreMetadata(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines) {
    if (line.trim() === "") break;
    if (line.startsWith(" ") || line.startsWith("\t")) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!out.has(key)) out.set(key, line.slice(colon + 1).trim());
  }
  return out;
}

async function siteDirs(ctx: Ctx): Promise<SiteDir[]> {
  const out: SiteDir[] = [{ directory: "/usr/lib/python3/dist-packages" }];
  for (const lib of LIB_DIRS) {
    const { names } = await readDirUpTo(ctx.at(lib), 4096);
    for (const py of names.filter((n) => /^python\d(?:\.\d+)?$/.test(n)).slice(0, PYTHONS_PER_LIB)) {
      for (const sub of PACKAGE_DIRS) out.push({ directory: `${lib}/${py}/${sub}` });
    }
  }
  for (const user of await homes(ctx)) {
    const local = `${user.directory}/.local/lib`;
    const { names } = await readDirUpTo(ctx.at(local), 64);
    const realHome = names.length > 0 ? await realPath(ctx.at(user.directory)) : undefined;
    if (realHome === undefined) continue;
    for (const py of names.filter((n) => /^python\d(?:\.\d+)?$/.test(n)).slice(0, PYTHONS_PER_LIB)) {
      out.push({ directory: `${local}/${py}/site-packages`, user: { uid: user.uid, realHome } });
    }
  }
  const seen = new Set<string>();
  return out.filter((d) => !seen.has(d.directory) && seen.add(d.directory));
}

/** The metadata file an entry of a site-packages directory names, or undefined for anything else. */
function metadataFile(directory: string, entry: string): string | undefined {
  if (entry.endsWith(".dist-info")) return `${directory}/${entry}/METADATA`;
  if (entry.endsWith(".egg-info")) return `${directory}/${entry}`;
  return undefined;
}

export async function pythonPackages(ctx: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  for (const site of await siteDirs(ctx)) {
    const { names, complete } = await readDirUpTo(ctx.at(site.directory), ctx.max);
    if (!complete) ctx.cut();
    // A user's files: no link at the end, theirs or root's, inside their home as opened (they could point a link
    // at any file root can read).
    const opts: OpenOptions = site.user ? { noFollow: true, owners: [site.user.uid, 0], within: site.user.realHome } : { noFollow: true };
    for (const entry of names) {
      let file = metadataFile(site.directory, entry);
      if (file === undefined) continue;
      let head = await readHeadLines(ctx.at(file), METADATA_BYTES, opts);
      // An .egg-info directory holds PKG-INFO; an .egg-info file is the metadata itself.
      if (head.lines.length === 0 && entry.endsWith(".egg-info")) {
        file = `${file}/PKG-INFO`;
        head = await readHeadLines(ctx.at(file), METADATA_BYTES, opts);
      }
      const meta = parseCoreMetadata(head.lines);
      const name = meta.get("name");
      if (name === undefined || name === "") continue;
      rows.push({
        name,
        version: meta.get("version") ?? "",
        summary: meta.get("summary") ?? "",
        author: meta.get("author") ?? meta.get("author-email") ?? "",
        license: meta.get("license") ?? "",
        path: path.posix.dirname(file) === site.directory ? file : path.posix.dirname(file),
        directory: site.directory,
        uid: site.user ? String(site.user.uid) : "",
        pid_with_namespace: "0",
      });
      if (rows.length >= ctx.max) {
        ctx.cut();
        return rows;
      }
    }
  }
  return rows;
}
