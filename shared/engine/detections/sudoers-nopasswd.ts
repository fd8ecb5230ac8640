// sudoers rules granting ALL commands without a password.
import { cloudSudoRule, isRaspberryPi, type SudoHost } from "../baselines/index.js";
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { isInteractiveShell } from "./patterns.js";

/**
 * NOPASSWD for every command, or for a shell or interpreter (a root shell with no argument restriction is ALL by
 * another name: GTFOBins "Sudo" entries for bash, sh, su, python, perl, env).
 */
const ANY_COMMAND = /^(?:ALL|(?:\/usr)?\/s?bin\/(?:(?:ba|da|z|k|c|tc)?sh|su|python[\d.]*|perl|ruby|env))$/i;
const NOPASSWD_TAG = /NOPASSWD\s*:/gi;

/**
 * Whether a command after a NOPASSWD: tag (the list to the end of the rule, split at commas) is ALL or a shell. In
 * code, not one regular expression: `(?:[^,]*,\s*)*` backtracked exponentially in the items of a list ("a, b, c"),
 * 2.5 s for an ordinary rule of 22 commands and days for a crafted one.
 */
export function nopasswdAll(rule: string): boolean {
  for (const tag of rule.matchAll(NOPASSWD_TAG)) {
    const commands = rule.slice((tag.index ?? 0) + tag[0].length).split(",");
    if (commands.some((c) => ANY_COMMAND.test(c.trim()))) return true;
  }
  return false;
}

/**
 * The users a rule lets its subject run commands as (sudoers(5) Runas_Spec, the parenthesised list after `=`), or
 * null when the rule may run them as root, or when this reading cannot tell: no list (root is the default); ALL,
 * root, a uid (`#0`, `#00`), a group, a quoted or escaped name, an alias (`OP`, which sudo resolves); any group part
 * (`(:disk)`: `sudo -g disk` reaches root through the group); a second Host_Spec or Runas list later in the rule; a
 * listed user with uid 0 (`uidZero`, from the users table).
 */
export function runasOtherThanRoot(rule: string, uidZero: ReadonlySet<string> = new Set()): string[] | null {
  const eq = rule.indexOf("=");
  const open = rule.indexOf("(", eq + 1);
  if (eq < 0 || open < 0 || rule.slice(eq + 1, open).trim() !== "") return null;
  const close = rule.indexOf(")", open);
  if (close < 0 || rule.includes("(", close) || rule.includes("=", close)) return null;
  const [usersPart = "", group] = rule.slice(open + 1, close).split(":");
  if (group !== undefined) return null;
  const users = usersPart.split(",").map((u) => u.trim());
  const plain = (u: string): boolean => /^[a-z_][a-z0-9_.-]*\$?$/.test(u) && u !== "root" && !uidZero.has(u);
  return users.every(plain) ? users : null;
}

export const sudoersNopasswdAll = defineDetection({
  id: "sudoers-nopasswd-all",
  title: "sudoers grants NOPASSWD: ALL",
  reads: { sudoers: ["source", "header", "rule_details"], users: ["username", "uid", "shell"], deb_packages: ["name", "status"], kernel_modules: ["name"] },
  severity: "medium",
  attack: ["T1548.003"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives: "Deploy and configuration-management accounts given passwordless sudo on purpose (cloud-init, GCE, SSM and Raspberry Pi OS default rules are kept quiet).",
  advice: {
    triage: ["Check which file on {hosts} holds the rule (sudoers.d) and whether configuration management owns it."],
    containment: ["Remove the rule or require a password (drop NOPASSWD) on {hosts}."],
    investigation: ["Review recent sudo use by the account (auth.log) and who edited sudoers."],
    remediation: ["Grant specific commands instead of ALL; manage sudoers centrally."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    // A package removed with its configuration left (status "deinstall ok config-files") is no longer the host's.
    const installed = rowsOf(host, "deb_packages").filter((p) => str(p, "status") === "" || str(p, "status").endsWith(" installed"));
    const firstUser = rowsOf(host, "users").find((u) => str(u, "uid") === "1000" && isInteractiveShell(str(u, "shell")));
    const machine: SudoHost = {
      raspberryPi: isRaspberryPi(installed.map((p) => str(p, "name")), rowsOf(host, "kernel_modules").map((m) => str(m, "name"))),
      firstUser: firstUser === undefined ? undefined : str(firstUser, "username"),
    };
    const uidZero = new Set(rowsOf(host, "users").filter((u) => str(u, "uid") === "0").map((u) => str(u, "username")));
    for (const row of rowsOf(host, "sudoers")) {
      // A comment after the rule is the agent's text too: `#` not followed by a digit (that is a uid, `#0`).
      const rule = str(row, "rule_details").replace(/\s#(?!\d).*$/, "");
      const header = str(row, "header").trim();
      if (!nopasswdAll(rule) || header.startsWith("Defaults")) continue;
      const who = header.split(/\s+/)[0] ?? header;
      if (who === "root") continue; // root already holds every right: the rule grants nothing.
      const source = str(row, "source");
      const evidence = [{ table: "sudoers", row }];
      const entity = who.startsWith("%") ? `group:${who.slice(1)}` : `user:${who}`;
      const subject = who.startsWith("%") ? `Group ${who.slice(1)}` : `User ${who}`;
      const cloud = cloudSudoRule(source, who, rule, machine);
      if (cloud) {
        hits.push({ summary: `${subject} may run any command as root without a password (${rule.trim()} in ${source}), the default rule its image or agent writes.`, evidence, entity, kept_by: cloud.baseline });
        continue;
      }
      const runas = runasOtherThanRoot(rule, uidZero);
      if (runas !== null) {
        hits.push({ summary: `${subject} may run any command as ${runas.join(", ")}, not as root, without a password (${rule.trim()}${source ? ` in ${source}` : ""}).`, evidence, entity, severity: "info" });
        continue;
      }
      const everyone = who === "ALL" || who === "%users" || who === "%all";
      hits.push({
        summary: `${subject} may run any command as root without a password (${rule.trim()}${source ? ` in ${source}` : ""}).`,
        evidence,
        severity: everyone ? "high" : undefined,
        entity,
        // The same rule in the same file on most hosts is configuration management's (a deploy account); a rule
        // that lets every user be root is not kept quiet however common.
        ...(everyone ? {} : { fleet_key: `${source}\n${who}\n${rule.trim().replace(/\s+/g, " ")}` }),
      });
    }
    return hits;
  },
});
