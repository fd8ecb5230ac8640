// Telemetry that fits in one NATS message: a busy host's tables can pass the server's max_payload, which
// would make the publish throw. The largest table is halved until the message fits, and the cut tables are
// named in `truncated` so the investigation can say its rows are partial.
import { encodeJson } from "../../shared/nats/kvjson.js";
import type { Tables } from "../../shared/agents/protocol.js";

/** Room kept for headers and the reply envelope. */
const MARGIN = 4 * 1024;

export function fitTables<T extends { tables: Tables; truncated?: string[] }>(message: T, maxPayload: number): Uint8Array {
  const limit = Math.max(1024, maxPayload - MARGIN);
  let bytes = encodeJson(message);
  if (bytes.length <= limit) return bytes;
  const tables: Tables = { ...message.tables };
  const truncated = new Set<string>(message.truncated ?? []);
  while (bytes.length > limit) {
    const [name, rows] = Object.entries(tables).sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (name === undefined || rows === undefined || rows.length === 0) break;
    tables[name] = rows.slice(0, Math.floor(rows.length / 2));
    truncated.add(name);
    bytes = encodeJson({ ...message, tables, truncated: [...truncated].sort() });
  }
  return bytes;
}
