// Interactive logins (wtmp/utmp user-process records) whose source is a public internet address: servers are normally
// reached through a VPN or a bastion, so a login straight from the internet is either exposure or stolen credentials.
import { compareText } from "../order.js";
import { num, rowsOf, str, tagList } from "../rows.js";
import { isIpv4, isLoopback, isPrivate, isPublic, normalizeIp } from "../net.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

/** wtmp pseudo-users that are not people. */
const PSEUDO_USERS = new Set(["reboot", "shutdown", "runlevel", "LOGIN", ""]);

function ipv4ToInt(ip: string): number | undefined {
  if (!isIpv4(ip)) return undefined;
  return ip.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
}

/** Whether `ip` is inside one of the CIDRs (or equal to one of the addresses) of a tag list. IPv6 matches exactly. */
export function inCidrs(ip: string, cidrs: readonly string[]): boolean {
  const addr = normalizeIp(ip);
  const value = ipv4ToInt(addr);
  return cidrs.some((c) => {
    const [base = "", bits] = c.trim().toLowerCase().split("/");
    if (value === undefined || !isIpv4(base)) return normalizeIp(base) === addr;
    const prefix = bits === undefined ? 32 : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) return false;
    const size = 2 ** (32 - prefix);
    const start = Math.floor((ipv4ToInt(base) ?? 0) / size) * size;
    return value >= start && value < start + size;
  });
}

/**
 * The address in a utmp host field, or "" when the field is not an address: ":0" (X display), "tmux(123).%0",
 * "mosh [4242]" (local until a client roams in), a hostname (UseDNS). "203.0.113.5 via mosh [4242]" gives the client.
 */
export function loginAddress(host: string): string {
  const h = host.trim().replace(/(?<!\s)\s+via\s+mosh\s+\[\d+\]$/, "");
  if (h === "" || h.startsWith(":")) return "";
  if (isIpv4(h)) return h;
  if (/^[0-9a-f:.]+$/i.test(h) && (h.match(/:/g) ?? []).length >= 2) return normalizeIp(h);
  return "";
}

function interactiveLast(row: Row): boolean {
  const type = num(row, "type");
  const typeName = str(row, "type_name");
  if (typeName !== "") return typeName === "user-process";
  return type === undefined || type === 7;
}

/** Roles whose hosts take logins from the internet by design (the `role` tag). */
const LOGIN_ROLES: ReadonlySet<string> = new Set(["bastion", "jump", "jumphost", "login", "hpc-login", "shell"]);

export const PUBLIC_LOGIN_SERVICE = "logins:public-service";
/** Distinct non-root users, each from a public address, and distinct public addresses, that make a public login host. */
const SERVICE_USERS = 5;
const SERVICE_SOURCES = 5;

/**
 * Whether the host's own records show it serving logins from the internet: at least five people (not root), from at
 * least five public addresses. A university cluster's login nodes, a shared-hosting server's customers, a shell
 * server: their users log in from home and abroad by design (the site's controls are keys, MFA and rate limits, not
 * source addresses). An intruder is one source among them, so such a host's non-root public logins are observations;
 * root's never are.
 */
function publicLoginService(groups: Iterable<{ ip: string; users: ReadonlySet<string> }>): string | undefined {
  const users = new Set<string>();
  let sources = 0;
  for (const g of groups) {
    const people = [...g.users].filter((u) => u !== "root");
    if (people.length === 0) continue;
    sources++;
    for (const u of people) users.add(u);
  }
  return users.size >= SERVICE_USERS && sources >= SERVICE_SOURCES ? `${users.size} users from ${sources} public addresses` : undefined;
}

export const publicInteractiveLogin = defineDetection({
  id: "public-interactive-login",
  title: "Interactive login from a public internet address",
  reads: {
    last: ["username", "host", "type", "type_name"],
    logged_in_users: ["user", "host", "type"],
  },
  severity: "medium",
  attack: ["T1078", "T1021.004"],
  maturity: "test",
  category: "initial-access",
  false_positives:
    "Hosts meant to take logins from the internet (bastions and login nodes: tag role=bastion, jump, login, hpc-login or shell; a host whose records show five or more users from five or more public addresses is taken for one) and administrators' fixed public egress addresses (list them in the allowed_login_sources tag as CIDRs); the test networks 192.0.2/24, 198.51.100/24, 203.0.113/24 count as public.",
  advice: {
    triage: ["On {hosts}, identify who owns the source address (VPN egress, office, cloud shell?) and whether the account's owner made the login."],
    containment: ["Block the source address and restrict SSH on {hosts} to the VPN/bastion ranges (security group, sshd AllowUsers/Match Address)."],
    investigation: ["Review the session: shell history, processes started at the login time, authorized_keys changes, sudo use; check the account's other logins across the fleet."],
    remediation: ["Put SSH behind a VPN or bastion, disable password authentication, and record expected sources in allowed_login_sources."],
  },
  baseline_tag: "allowed_login_sources",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_login_sources");
    const bastion = LOGIN_ROLES.has((host.tags.role ?? "").toLowerCase());
    const groups = new Map<string, { ip: string; users: Set<string>; evidence: EvidenceRow[]; live: boolean }>();
    const add = (user: string, rawHost: string, table: string, row: Row): void => {
      if (PSEUDO_USERS.has(user)) return;
      const ip = loginAddress(rawHost);
      if (ip === "" || isLoopback(ip) || isPrivate(ip) || !isPublic(ip)) return;
      const g = groups.get(ip) ?? { ip, users: new Set<string>(), evidence: [], live: false };
      g.users.add(user);
      g.evidence.push({ table, row });
      if (table === "logged_in_users") g.live = true;
      groups.set(ip, g);
    };
    for (const row of rowsOf(host, "last")) {
      if (!interactiveLast(row)) continue;
      add(str(row, "username"), str(row, "host"), "last", row);
    }
    for (const row of rowsOf(host, "logged_in_users")) {
      const type = str(row, "type");
      if (type !== "" && type !== "user") continue;
      add(str(row, "user"), str(row, "host"), "logged_in_users", row);
    }
    const service = publicLoginService(groups.values());
    const hits: DetectionHit[] = [];
    for (const g of [...groups.values()].sort((a, b) => compareText(a.ip, b.ip))) {
      const users = [...g.users].sort(compareText);
      const root = g.users.has("root");
      const summary = `${users.join(", ")} logged in interactively from the public address ${g.ip} (${g.evidence.length} record${g.evidence.length === 1 ? "" : "s"}${g.live ? ", session still open" : ""}).`;
      const entity = `ip:${g.ip}`;
      if (allowed.length > 0 && inCidrs(g.ip, allowed)) {
        hits.push({ summary, evidence: g.evidence, entity, severity: "info", kept_by: "tag:allowed_login_sources" });
      } else if (bastion && !root) {
        hits.push({ summary, evidence: g.evidence, entity, severity: "info", kept_by: "role:bastion" });
      } else if (service !== undefined && !root) {
        hits.push({ summary: `${summary} The host takes logins from the internet as its service: ${service}.`, evidence: g.evidence, entity, severity: "info", kept_by: PUBLIC_LOGIN_SERVICE });
      } else {
        hits.push({ summary, evidence: g.evidence, entity, severity: root && !bastion ? "high" : "medium" });
      }
    }
    return hits;
  },
});
