// Software inventory: deb_packages from the dpkg status database.
import { readText, type Ctx, type Row } from "./util.js";

const DPKG_ADMINDIR = "/var/lib/dpkg";

/** Split a Debian control file into stanzas of field → value (continuation lines appended). */
export function parseControl(text: string): Array<Map<string, string>> {
  const stanzas: Array<Map<string, string>> = [];
  let current = new Map<string, string>();
  let lastKey: string | undefined;
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      if (current.size > 0) stanzas.push(current);
      current = new Map();
      lastKey = undefined;
      continue;
    }
    if ((line.startsWith(" ") || line.startsWith("\t")) && lastKey !== undefined) {
      current.set(lastKey, `${current.get(lastKey) ?? ""}\n${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    lastKey = line.slice(0, colon);
    current.set(lastKey, line.slice(colon + 1).trim());
  }
  if (current.size > 0) stanzas.push(current);
  return stanzas;
}

export function debRow(s: Map<string, string>): Row | undefined {
  const name = s.get("Package");
  const status = s.get("Status") ?? "";
  // "want flag state": skip records dpkg only remembers (purged / never installed).
  if (name === undefined || status.split(/\s+/)[2] === "not-installed") return undefined;
  const version = s.get("Version") ?? "";
  const dash = version.lastIndexOf("-");
  return {
    name,
    version,
    source: (s.get("Source") ?? "").replace(/\s*\(.*\)$/, ""),
    size: Number(s.get("Installed-Size") ?? 0) || 0,
    arch: s.get("Architecture") ?? "",
    revision: dash === -1 ? "" : version.slice(dash + 1),
    status,
    maintainer: s.get("Maintainer") ?? "",
    section: s.get("Section") ?? "",
    priority: s.get("Priority") ?? "",
    admindir: DPKG_ADMINDIR,
  };
}

export async function debPackages(ctx: Ctx): Promise<Row[]> {
  const text = await readText(ctx.at(`${DPKG_ADMINDIR}/status`), 64 * 1024 * 1024);
  if (text === undefined) return [];
  const rows: Row[] = [];
  for (const stanza of parseControl(text)) {
    const row = debRow(stanza);
    if (row === undefined) continue;
    rows.push(row);
    if (rows.length >= ctx.max) break;
  }
  return rows;
}
