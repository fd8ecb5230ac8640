// sudoers rules granting ALL commands without a password.
import { rowsOf, str } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const NOPASSWD_ALL = /NOPASSWD\s*:\s*ALL\s*$/i;
/** Default accounts cloud images grant passwordless sudo to (cloud-init). */
const CLOUD_DEFAULT_USERS: ReadonlySet<string> = new Set(["ubuntu", "admin", "debian", "ec2-user", "centos", "cloud-user"]);

export const sudoersNopasswdAll = defineDetection({
  id: "sudoers-nopasswd-all",
  title: "sudoers grants NOPASSWD: ALL",
  tables: ["sudoers"],
  severity: "medium",
  attack: ["T1548.003"],
  maturity: "test",
  category: "privilege-escalation",
  keywords: ["sudo", "sudoers", "nopasswd", "passwordless sudo", "privilege escalation", "privesc"],
  false_positives: "Deploy and configuration-management accounts given passwordless sudo on purpose; cloud-init default users.",
  advice: {
    triage: ["Check which file on {hosts} holds the rule (sudoers.d) and whether configuration management owns it."],
    containment: ["Remove the rule or require a password (drop NOPASSWD) on {hosts}."],
    investigation: ["Review recent sudo use by the account (auth.log) and who edited sudoers."],
    remediation: ["Grant specific commands instead of ALL; manage sudoers centrally."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "sudoers")) {
      const rule = str(row, "rule_details");
      const header = str(row, "header").trim();
      if (!NOPASSWD_ALL.test(rule) || header.startsWith("Defaults")) continue;
      const who = header.split(/\s+/)[0] ?? header;
      const cloudDefault = CLOUD_DEFAULT_USERS.has(who) && /cloud-init/.test(str(row, "source"));
      hits.push({
        summary: `${who.startsWith("%") ? `Group ${who.slice(1)}` : `User ${who}`} may run any command as root without a password (${rule.trim()}${str(row, "source") ? ` in ${str(row, "source")}` : ""}).`,
        evidence: [{ table: "sudoers", row }],
        severity: cloudDefault ? "low" : who === "ALL" || who === "%users" ? "high" : undefined,
        entity: who.startsWith("%") ? `group:${who.slice(1)}` : `user:${who}`,
      });
    }
    return hits;
  },
});
