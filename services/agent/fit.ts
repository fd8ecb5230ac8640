// Telemetry that fits in one NATS message: a busy host's tables can pass the server's max_payload, which
// would make the publish throw. Every text value is first cut to VALUE_MAX_CHARS (a process's arguments can be
// a megabyte each, and whoever runs on the host chooses them); then the table taking the most bytes is halved until
// the message fits. The cut tables are named in `truncated` so the investigation can say its rows are partial.
import { encodeJson } from "../../shared/nats/kvjson.js";
import type { Tables } from "../../shared/agents/protocol.js";

/** Room kept for headers and the reply envelope. */
const MARGIN = 4 * 1024;
/** A text value of a row is cut to this many characters (a long command line keeps its first 16 KiB). */
export const VALUE_MAX_CHARS = 16 * 1024;

type Row = Record<string, unknown>;

/** The rows with every long text value cut, or the same rows when none is. */
function withShortValues(rows: Row[]): { rows: Row[]; cut: boolean } {
  let cut = false;
  const out = rows.map((row) => {
    let copy: Row | null = null;
    for (const [k, v] of Object.entries(row)) {
      if (typeof v !== "string" || v.length <= VALUE_MAX_CHARS) continue;
      copy ??= { ...row };
      copy[k] = `${v.slice(0, VALUE_MAX_CHARS)}…`;
      cut = true;
    }
    return copy ?? row;
  });
  return { rows: cut ? out : rows, cut };
}

export function fitTables<T extends { tables: Tables; truncated?: string[] }>(message: T, maxPayload: number): Uint8Array {
  const limit = Math.max(1024, maxPayload - MARGIN);
  const tables: Tables = {};
  const truncated = new Set<string>(message.truncated ?? []);
  for (const [name, rows] of Object.entries(message.tables)) {
    const short = withShortValues(rows);
    tables[name] = short.rows;
    if (short.cut) truncated.add(name);
  }
  const encode = (): Uint8Array => encodeJson(truncated.size === 0 ? { ...message, tables } : { ...message, tables, truncated: [...truncated].sort() });
  let bytes = encode();
  if (bytes.length <= limit) return bytes;
  // The bytes each table takes, measured once (only for a message that does not fit); a halved table is measured again.
  const sizes = new Map(Object.entries(tables).map(([name, rows]) => [name, encodeJson(rows).length]));
  while (bytes.length > limit) {
    const [name] = [...sizes].filter(([n]) => (tables[n]?.length ?? 0) > 0).sort((a, b) => b[1] - a[1])[0] ?? [];
    if (name === undefined) break;
    const rows = tables[name] as Row[];
    tables[name] = rows.slice(0, Math.floor(rows.length / 2));
    sizes.set(name, encodeJson(tables[name]).length);
    truncated.add(name);
    bytes = encode();
  }
  return bytes;
}
