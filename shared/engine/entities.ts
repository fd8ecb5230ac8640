// Entity extraction from the question: IPv4, sha256, CVE/GHSA ids, `user <name>`, `port <n>`, paths, file and snake_case
// names, cloud access key ids, key=value tags.
import { compareText } from "./order.js";
import { isIP } from "node:net";
import { isIpv4 } from "./net.js";
import type { QueryEntities } from "./types.js";
import { allMatches } from "./matches.js";
import { withoutTrailing, withoutTrailingSlashes } from "./rows.js";
import { ROUTE_CATALOG } from "./detections/route-catalog.js";
import { PATHFINDER_TABLES } from "./pathfinder-tables.js";

/** Tables the detections and the pathfinder read: a question that names one is asking about it, not naming an indicator. */
const TABLE_NAMES: ReadonlySet<string> = new Set([...ROUTE_CATALOG.flatMap((d) => d.tables), ...PATHFINDER_TABLES]);

/** snake_case words of Linux itself that questions name as places or settings, not as indicators. */
const COMMON_IDENTIFIERS: ReadonlySet<string> = new Set([
  "authorized_keys", "authorized_keys2", "known_hosts", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "ssh_config", "sshd_config",
  "release_agent", "notify_on_release", "core_pattern", "ptrace_scope", "kptr_restrict", "dmesg_restrict", "perf_event_paranoid",
  "suid_dumpable", "randomize_va_space", "ip_forward", "modules_disabled", "unprivileged_userns_clone", "max_user_namespaces",
  "unprivileged_bpf_disabled", "bpf_jit_enable", "ld_preload", "ld_library_path", "ld_so_preload", "api_key", "api_keys",
  "access_key", "secret_key", "private_key", "user_id", "pam_exec", "pam_unix", "node_modules", "site_packages", "get_url",
  "rc_local", "binfmt_misc", "tcp_wrappers", "hosts_allow", "hosts_deny", "crontab_e", "cron_d", "init_d", "zero_day",
  "cron_jobs", "cron_job", "sudo_users", "sudo_rules", "root_password", "root_login", "auth_log", "ssh_keys", "ssh_key",
  "pam_env", "user_accounts", "user_account", "file_names", "host_names", "ip_addresses", "ip_address", "port_numbers",
  "shell_history", "bash_history", "command_line", "process_names", "kernel_module", "web_shell", "reverse_shell",
]);

/**
 * Words that follow "user", "account", "as" or "did" in questions without being a user name: function words,
 * quantifiers, question words, roles and the verbs and nouns analysts put there ("any user log in", "the user
 * accounts that were created", "logged in as someone unexpected", "the database user").
 */
const NOT_A_USER: ReadonlySet<string> = new Set([
  "is", "are", "was", "were", "be", "been", "being", "am", "the", "a", "an", "and", "or", "but", "if", "of", "on", "in", "at",
  "to", "from", "for", "as", "by", "with", "without", "into", "onto", "over", "under", "via", "per", "than", "that", "this",
  "these", "those", "there", "here", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "it", "its", "they",
  "them", "their", "he", "she", "him", "her", "his", "hers", "we", "us", "our", "you", "your", "i", "me", "my", "not", "no", "any",
  "all", "each", "every", "some", "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody_else", "one",
  "other", "others", "another", "new", "old", "unknown", "unexpected", "normal", "regular", "real", "same", "different", "own",
  "local", "remote", "service", "system", "interactive", "privileged", "unprivileged", "admin", "administrator", "attacker",
  "hacker", "intruder", "web", "app", "application", "database", "db", "ci", "build", "human", "hire", "level", "land", "mode",
  // "the SSH daemon's config": the daemon's, not an account's (the daemon user is asked after by name).
  "daemon", "kernel",
  "space", "name", "names", "named", "called", "id", "ids", "uid", "gid", "account", "accounts", "user", "users", "login",
  "logins", "log", "logs", "logged", "logging", "session", "sessions", "shell", "shells", "key", "keys", "crontab", "crontabs",
  "process", "processes", "home", "directory", "password", "passwords", "with", "has", "have", "had", "can", "could", "did",
  "does", "do", "done", "will", "would", "should", "may", "might", "must", "run", "runs", "running", "ran", "create", "created",
  "creating", "add", "added", "adding", "get", "got", "gets", "make", "made", "use", "used", "using", "said", "says",
  "complained", "complain", "started", "start", "spawned", "spawning", "owns", "owned", "connect", "connected", "ssh", "sshed",
  "sudo", "become", "became", "grab", "grabbed", "clear", "cleared", "wipe", "wiped", "read", "reading", "part", "soon",
  "well", "also", "just", "still", "now", "ever", "recently", "today", "yesterday", "right", "everything", "anything",
  "something", "nothing", "zero", "root-level", "activity", "behaviour", "behavior", "privileges", "rights", "access",
  "permissions", "group", "groups", "agent", "runner", "tor", "else", "after", "given", "host", "node", "people", "server", "box",
  "machine", "container", "pod", "cluster", "team", "company", "customer", "vendor", "world",
]);


/**
 * Public suffixes under which a bare name is taken for a domain ("webhook.site", "transfer.sh"): generic and
 * country suffixes common in threat reports. Internal names (.internal, .local, .lan, .corp) are never domains here:
 * they name our own hosts, the scope of a question.
 */
const PUBLIC_SUFFIXES = new Set(["com", "net", "org", "io", "sh", "site", "st", "at", "app", "me", "xyz", "ru", "cn", "top", "info", "biz", "cc", "su", "pw", "tk", "ws", "online", "live", "fun", "pro", "link"]);

function extractDomains(text: string): string[] {
  const out: string[] = [];
  for (const m of allMatches(/(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]+@)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)/gi, text)) {
    if (!/^\d+(?:\.\d+){3}$/.test(m[1] ?? "")) out.push((m[1] ?? "").toLowerCase());
  }
  for (const m of allMatches(/(?<![\w./@:-])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,}))(?![\w-]|\.[a-z0-9])/gi, text)) {
    if (PUBLIC_SUFFIXES.has((m[2] ?? "").toLowerCase())) out.push((m[1] ?? "").toLowerCase());
  }
  return out;
}

function uniqueSorted<T extends string | number>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : compareText(String(a), String(b))));
}

export function emptyEntities(): QueryEntities {
  return { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} };
}

const NAME = String.raw`["'\x60]?([a-z_][a-z0-9_.-]{0,31})["'\x60]?`;
/** Where analysts put a user name: "user X", "account X", "X's account/keys/history", "the X user", "logged in as X", "did X log in". */
const USER_CUES: readonly RegExp[] = [
  new RegExp(String.raw`\b(?:user(?:name)?|account)\s+(?:called\s+|named\s+)?${NAME}(?![\w-])`, "gi"),
  new RegExp(String.raw`(?:^|[\s(])${NAME}['’]s\s+(?:\.?\w+)`, "gi"),
  new RegExp(String.raw`\bthe\s+${NAME}\s+(?:user|account)\b`, "gi"),
  new RegExp(String.raw`\b(?:log(?:ged|s|ging)?\s+in|logins?|sshed\s+in|ssh(?:ed)?\s+in|running|run|connected)\s+as\s+${NAME}(?![\w-])`, "gi"),
  new RegExp(String.raw`\bdid\s+${NAME}\s+(?:log|ssh|login|sudo|connect)\b`, "gi"),
  new RegExp(String.raw`\b(?:than|besides|except|for|is)\s+(?:the\s+real\s+)?(root)\b(?!\s*(?:-|account|accounts|privilege|privileges|level|uid|access\s+via))`, "gi"),
  /\b(root)\s+(?:login|logins|logging|logged|access|session|sessions|ssh)\b/gi,
];

function extractUsers(text: string): string[] {
  const found: string[] = [];
  for (const re of USER_CUES) {
    for (const m of allMatches(re, text)) {
      const name = withoutTrailing(m[1] ?? "", ".");
      const lower = name.toLowerCase();
      if (name === "" || NOT_A_USER.has(lower) || /^\d/.test(name)) continue;
      found.push(lower);
    }
  }
  return found;
}

export function extractEntities(query: string): QueryEntities {
  const text = query.normalize("NFKC");
  const ips = allMatches(/(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.]*\d)/g, text).map((m) => m[1] ?? "").filter(isIpv4);
  for (const m of allMatches(/(?<![\w:.])((?:[0-9a-fA-F]{1,4}:){2,7}:?(?:[0-9a-fA-F]{1,4})?(?::[0-9a-fA-F]{1,4})*)(?![\w:.])/g, text)) {
    const candidate = (m[1] ?? "").toLowerCase();
    if (isIP(candidate) === 6) ips.push(candidate);
  }
  const sha256 = allMatches(/\b([a-fA-F0-9]{64})\b/g, text).map((m) => (m[1] ?? "").toLowerCase());
  const cves = allMatches(/\b(CVE-\d{4}-\d{4,7})\b/gi, text).map((m) => (m[1] ?? "").toUpperCase());
  const ghsas = allMatches(/\b(GHSA(?:-[23456789cfghjmpqrvwx]{4}){3})\b/gi, text).map((m) => `GHSA${(m[1] ?? "").slice(4).toLowerCase()}`);
  const users = extractUsers(text);
  const ports: number[] = [];
  for (const m of allMatches(/\bports?\s+((?:\d{1,5})(?:\s*(?:,|\/|and|or)\s*\d{1,5})*)/gi, text)) {
    for (const n of (m[1] ?? "").match(/\d{1,5}/g) ?? []) ports.push(Number(n));
  }
  for (const m of allMatches(/(?<![\w.])(?:\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b/g, text)) ports.push(Number(m[1]));
  const paths = allMatches(/(?:^|[\s"'`(=])(\/(?:[A-Za-z0-9._@+-]+\/?)+)/g, text)
    // Trailing punctuation ends a sentence, except a last component of dots only: "/tmp/..." is a real hiding place.
    .map((m) => (/\/\.{3,}$/.test(m[1] ?? "") ? `${withoutTrailing(m[1] ?? "", ".")}...` : withoutTrailing(m[1] ?? "", ".,;:!?)")))
    .map((p) => (p.length > 1 ? withoutTrailingSlashes(p) : p))
    .filter((p) => p.length > 1);
  const domains = extractDomains(text);
  // A file name standing alone (not inside a path), of the kinds indicators name: shared objects (with a version),
  // scripts, kernel modules, binaries. Bounded quantifiers: linear on any text.
  const files: string[] = allMatches(/(?<![\w/.@-])([A-Za-z0-9_][A-Za-z0-9_+-]{0,63}(?:\.[A-Za-z0-9_+-]{1,32}){0,4}\.(?:so(?:\.\d{1,4}){0,4}|sh|py|pl|ko|php|jar|elf|bin))(?![\w.-])/g, text)
    .map((m) => m[1] ?? "")
    .filter((f) => f !== "" && !domains.includes(f.toLowerCase()));
  // A relative path to such a file (`node_modules/nx/telemetry.js`, `.venv/lib/x/evil.py`): an indicator that names
  // the end of a path. Scripts of any interpreter count here, the directories say it is a file.
  for (const m of allMatches(/(?<![\w/.@-])((?:[A-Za-z0-9_.+-]{1,64}\/){1,8}[A-Za-z0-9_+-]{1,64}(?:\.[A-Za-z0-9_+-]{1,32}){0,4}\.(?:so(?:\.\d{1,4}){0,4}|sh|py|pl|ko|php|jar|elf|bin|js|mjs|cjs|rb|lua))(?![\w.-])/g, text)) {
    const rel = m[1] ?? "";
    if (rel !== "" && !rel.startsWith("../") && !rel.startsWith("./")) files.push(rel);
    else if (rel.startsWith("./")) files.push(rel.slice(2));
  }
  // A container image named after "image" (`the image cmd.cat/chattr`, `image docker.io/x/miner:latest`): a repository
  // with at least one slash, matched against the containers' images.
  for (const m of allMatches(/\bimages?\s+(?:named\s+|called\s+)?["'`]?([a-z0-9][a-z0-9._-]{0,127}(?:\/[a-z0-9][a-z0-9._-]{0,127}){1,3}(?::[\w.-]{1,128})?)/gi, text)) {
    const ref = withoutTrailing(m[1] ?? "", ".,;:!?").toLowerCase();
    // A registry host (with a dot or a port) or segments of three characters and more: not "images on/off".
    const segments = ref.split(":")[0]?.split("/") ?? [];
    const image = /[.:]/.test(segments[0] ?? "") || segments.every((x) => x.length >= 3);
    if (ref.includes("/") && image && !files.includes(ref)) files.push(ref);
  }
  // A snake_case name standing alone ("any sign of intel_audio?"): a directory, unit or program name a report gave,
  // looked for as a word of a command. Lowercase only (LD_PRELOAD is a variable), and not the words Linux questions
  // use anyway: a table's name, a tuning tag, a key file's or a kernel setting's name.
  for (const m of allMatches(/(?<![\w/.@=$-])([a-z][a-z0-9]{1,31}(?:_[a-z0-9]{1,31}){1,4})(?![\w/.@=-])/g, text)) {
    const name = m[1] ?? "";
    if (!COMMON_IDENTIFIERS.has(name) && !TABLE_NAMES.has(name) && !/^(?:allowed|known)_/.test(name) && !files.includes(name)) files.push(name);
  }
  // AWS access key ids: AKIA (long-term) or ASIA (temporary), then 16 base32 characters (IAM User Guide, "Unique
  // identifiers": IDs prefixes).
  const accessKeys = allMatches(/(?<![A-Za-z0-9])((?:AKIA|ASIA)[A-Z2-7]{16})(?![A-Za-z0-9])/g, text).map((m) => m[1] ?? "");
  const tags: Record<string, string> = {};
  for (const m of allMatches(/(?<![\w/.-])([A-Za-z][A-Za-z0-9_.-]*)=([A-Za-z0-9_.:\/@-]+)/g, text)) {
    const key = m[1] ?? "";
    const value = withoutTrailing(m[2] ?? "", ".,;:!?");
    if (key !== "" && value !== "" && tags[key] === undefined) tags[key] = value;
  }
  const sortedTags: Record<string, string> = {};
  for (const k of Object.keys(tags).sort()) sortedTags[k] = tags[k] ?? "";
  return {
    ips: uniqueSorted(ips),
    sha256: uniqueSorted(sha256),
    advisories: uniqueSorted([...cves, ...ghsas]),
    users: uniqueSorted(users),
    ports: uniqueSorted(ports.filter((p) => Number.isInteger(p) && p > 0 && p <= 65535)),
    paths: uniqueSorted(paths),
    domains: uniqueSorted(domains),
    files: uniqueSorted(files),
    ...(accessKeys.length > 0 ? { access_keys: uniqueSorted(accessKeys) } : {}),
    tags: sortedTags,
  };
}

/** Entities that can seed the pathfinder (tags narrow scope; advisories route to a detection). */
export function hasSeedEntities(e: QueryEntities): boolean {
  return e.ips.length + e.sha256.length + e.users.length + e.ports.length + e.paths.length > 0;
}

/** Entities an exact indicator match can look for. */
export function hasIndicatorEntities(e: QueryEntities): boolean {
  return e.ips.length + e.sha256.length + e.paths.length + e.domains.length + (e.files?.length ?? 0) + (e.access_keys?.length ?? 0) > 0;
}
