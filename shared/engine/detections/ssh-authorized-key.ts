// SSH authorized keys on root or on service accounts, outside the host's allowed keys.
import { stableHash } from "../fingerprint.js";
import { num, rowsOf, str, tagList } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { isInteractiveShell } from "./patterns.js";

/** A stable short id for a public key (the base64 body, ignoring options and comment). */
export function sshKeyId(key: string): string {
  const body = key.split(/\s+/).find((part) => part.startsWith("AAAA")) ?? key.trim();
  return stableHash(body);
}

function comment(row: Row): string {
  const explicit = str(row, "comment");
  if (explicit !== "") return explicit;
  const parts = str(row, "key").trim().split(/\s+/);
  const i = parts.findIndex((p) => p.startsWith("AAAA"));
  return i >= 0 ? parts.slice(i + 1).join(" ") : "";
}

export const sshAuthorizedKey = defineDetection({
  id: "ssh-authorized-key",
  title: "SSH authorized key on root or a service account",
  tables: ["authorized_keys", "users"],
  severity: "medium",
  attack: ["T1098.004"],
  maturity: "test",
  category: "persistence",
  keywords: ["ssh key", "authorized key", "authorized_keys", "ssh keys", "ssh access", "ssh"],
  false_positives: "Configuration-management keys on root (Ansible, Salt) not listed in the host's allowed_ssh_keys tag.",
  advice: {
    triage: ["Ask the owners of {hosts} whether the key's comment and origin are known; compare with the key inventory."],
    containment: ["Remove the key from the authorized_keys file on {hosts} and kill sessions that used it."],
    investigation: ["Search the fleet for the same key (pathfinder: ssh key reused across hosts) and for logins from it."],
    remediation: ["Manage authorized keys centrally; disable root SSH login (PermitRootLogin no)."],
  },
  baseline_tag: "allowed_ssh_keys",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_ssh_keys");
    const users = new Map(rowsOf(host, "users").map((u) => [str(u, "uid"), u] as const));
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "authorized_keys")) {
      const key = str(row, "key");
      if (key === "") continue;
      const note = comment(row);
      if (allowed.some((a) => note === a || key.includes(a))) continue;
      const uid = str(row, "uid");
      const user = users.get(uid);
      const name = str(user, "username") || `uid ${uid}`;
      const service = (num(user, "uid") ?? 1000) < 1000 || !isInteractiveShell(str(user, "shell"));
      if (uid !== "0" && !service) continue;
      hits.push({
        summary:
          uid === "0"
            ? `root accepts SSH key "${note || "(no comment)"}" from ${str(row, "key_file") || "authorized_keys"}, not in the host's allowed keys.`
            : `Service account ${name} accepts SSH key "${note || "(no comment)"}" (${str(row, "key_file") || "authorized_keys"}).`,
        evidence: user ? [{ table: "authorized_keys", row }, { table: "users", row: user }] : [{ table: "authorized_keys", row }],
        severity: uid === "0" ? "high" : undefined,
        entity: `sshkey:${sshKeyId(key)}`,
      });
    }
    return hits;
  },
});
