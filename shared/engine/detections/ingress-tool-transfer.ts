// Tools downloaded into temp or shared-memory directories or hidden paths: curl -o, wget -O/-P, tftp, scp from a
// remote host, python urlretrieve. Download-and-run is download-execute's; this is the transfer itself, graded
// by where it came from (raw IP, anonymous file host, plain http) and where it landed (/dev/shm, hidden path).
// Facts: Sigma "Download File To Potentially Suspicious Directory Via Wget" and "Suspicious Download and Execute
// Pattern via Curl/Wget", Atomic Red Team T1105 (curl/wget/scp/sftp/rsync download tests).
import { str, tagList, withoutTrailingSlashes } from "../rows.js";
import type { Severity } from "../types.js";
import { isReleaseUrl } from "../baselines/release-hosts.js";
import { isToolDir } from "../baselines/hidden-tool-dirs.js";
import { offensiveTool } from "../intel/offensive-tools.js";
import { stagingHost } from "../intel/staging-hosts.js";
import { isPublic } from "../net.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, isRawIpHost, PROCESS_COLUMNS, simpleCommands, urlHost, urlsOf, USER_COLUMNS, userMaps, type SimpleCommand } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";

interface Transfer {
  /** Where it came from (URL or host:path). */
  from: string;
  /** Where it landed (file or directory). */
  to: string;
  tool: string;
}

/** The value after an option (`-o x`, `-ox`, `--output=x`, `-fsSLo x`). */
function optionValue(args: readonly string[], short: string, long: string): string | undefined {
  const cluster = new RegExp(`^-[a-zA-Z]*${short}(.*)$`, "s"); // "s": a newline in the word cannot make each step rescan it
  for (const [i, a] of args.entries()) {
    if (a === long) return args[i + 1];
    if (a.startsWith(`${long}=`)) return a.slice(long.length + 1);
    const m = a.startsWith("--") ? null : cluster.exec(a);
    if (m) return (m[1] ?? "") !== "" ? m[1] : args[i + 1];
  }
  return undefined;
}

const join = (dir: string, file: string): string => `${withoutTrailingSlashes(dir)}/${file}`;
const fileOfUrl = (url: string): string => (url.split(/[?#]/)[0] ?? "").split("/").pop() || "index.html";

function transferOf(cmd: SimpleCommand, cwd: string): Transfer | undefined {
  const url = urlsOf(cmd.raw)[0];
  const redirect = /(?:^|\s)>\s*(\/\S+)/.exec(cmd.raw)?.[1];
  if (cmd.program === "curl" && url) {
    const out = optionValue(cmd.args, "o", "--output");
    if (out !== undefined && out !== "-") return { from: url, to: out.startsWith("/") ? out : join(cwd, out), tool: "curl" };
    if (cmd.args.some((a) => /^-[a-zA-NP-Z]*O[a-zA-Z]*$|^--remote-name$/.test(a))) return { from: url, to: join(cwd, fileOfUrl(url)), tool: "curl" };
    if (redirect) return { from: url, to: redirect, tool: "curl" };
  }
  if (cmd.program === "wget" && url) {
    const out = optionValue(cmd.args, "O", "--output-document");
    if (out === "-") return redirect ? { from: url, to: redirect, tool: "wget" } : undefined;
    if (out !== undefined) return { from: url, to: out.startsWith("/") ? out : join(cwd, out), tool: "wget" };
    const dir = optionValue(cmd.args, "P", "--directory-prefix");
    return { from: url, to: join(dir ?? cwd, fileOfUrl(url)), tool: "wget" };
  }
  if (cmd.program === "tftp" || cmd.program === "ftpget") {
    const local = optionValue(cmd.args, "l", "--local") ?? optionValue(cmd.args, "r", "--remote");
    const host = cmd.args.filter((a) => !a.startsWith("-")).find((a) => /^[\w.-]+$/.test(a) && /\.|^\d/.test(a)) ?? "";
    if (host !== "" && local !== undefined) return { from: `tftp://${host}/${local}`, to: local.startsWith("/") ? local : join(cwd, basenameOf(local)), tool: cmd.program };
  }
  if (["scp", "rsync", "sftp"].includes(cmd.program)) {
    const plain = cmd.args.filter((a) => !a.startsWith("-"));
    const dest = plain[plain.length - 1];
    const source = plain.slice(0, -1).find((a) => /^(?:[^@/\s:]+@)?[^/\s:]+:/.test(a));
    if (source && dest && dest.startsWith("/")) return { from: source, to: dest.endsWith("/") ? join(dest, basenameOf(source)) : dest, tool: cmd.program };
  }
  if (/^python[0-9.]*$/.test(cmd.program) && /urlretrieve|urlopen|requests\.get/.test(cmd.raw)) {
    const to = /['"](\/(?:tmp|var\/tmp|dev\/shm)\/[^'"]+|\/(?=[^'"]*\/\.[^'"])[^'"]+)['"]/.exec(cmd.raw)?.[1]; // the lookahead: one scan per quote
    if (url && to) return { from: url, to, tool: "python" };
  }
  return undefined;
}

function basenameOf(p: string): string {
  return p.replace(/^.*[:/]/, "") || p;
}

/** Where a file landed, if that is a staging place: temp, shared memory, or a hidden path. */
function staging(path: string): { where: string; strong: boolean } | undefined {
  if (path.startsWith("/dev/shm/")) return { where: "shared memory (/dev/shm)", strong: true };
  const hidden = path.split("/").slice(0, -1).concat(path.split("/").slice(-1)).find((s) => s.startsWith(".") && s !== "." && s !== ".." && !isToolDir(s));
  if (hidden !== undefined && !/\.(?:tar\.gz|tgz|zip|deb|rpm)$/.test(path)) return { where: `a hidden path (${hidden})`, strong: true };
  if (/^\/(?:tmp|var\/tmp)\//.test(path)) return { where: path.startsWith("/tmp/") ? "/tmp" : "/var/tmp", strong: false };
  return undefined;
}

export const ingressToolTransfer = defineDetection({
  id: "ingress-tool-transfer",
  title: "Tool downloaded into a temp, shared-memory or hidden directory",
  reads: { processes: [...PROCESS_COLUMNS, "cwd"], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "medium",
  attack: ["T1105"],
  maturity: "test",
  category: "command-and-control",
  false_positives:
    "Downloads from well-known release hosts (nodejs.org, go.dev, dl.k8s.io, GitHub release assets, distribution mirrors) and hosts listed in the allowed_download_hosts tag are ignored; package managers write to /var/cache, not /tmp. Admins fetching tools over https from other vendors into /tmp show as info.",
  advice: {
    triage: ["On {hosts}, hash the downloaded file (or recover it from the URL without running it) and check whether it was executed (processes, cron, systemd)."],
    containment: ["Block the source address or domain at the egress for {hosts}; quarantine the file."],
    investigation: ["Find what ran the download (parent process, session, cron) and what other hosts fetched the same URL."],
    remediation: ["Remove the file and anything it installed; mount /tmp and /dev/shm noexec where the workload allows."],
  },
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_download_hosts");
    const hits: DetectionHit[] = [];
    for (const src of commandSources(host, userMaps(host))) {
      let cwd = src.table === "processes" ? str(src.row, "cwd") || "/" : "~";
      for (const cmd of simpleCommands(src.text)) {
        if (cmd.program === "cd" && cmd.args[0]) {
          cwd = cmd.args[0];
          continue;
        }
        const t = transferOf(cmd, cwd);
        if (t === undefined) continue;
        const place = staging(t.to);
        if (place === undefined) continue;
        const tool = offensiveTool(`${t.from} ${t.to}`);
        // A release host explains a toolchain download, not an intruder's kit published as a GitHub release.
        if (tool === undefined && isReleaseUrl(t.from, allowed)) continue;
        const hostname = t.from.includes("://") ? urlHost(t.from) : (t.from.split(":")[0] ?? "").replace(/^.*@/, "");
        const reasons: string[] = [];
        let severity: Severity = "info";
        const rawIp = isRawIpHost(hostname);
        const publicIp = rawIp && isPublic(hostname.replace(/^\[|\]$/g, ""));
        if (rawIp) reasons.push(`from the ${publicIp ? "public" : "internal"} IP address ${hostname}`);
        const staged = stagingHost(hostname);
        if (staged) reasons.push(`from the anonymous file host ${staged.host}`);
        const cleartext = /^(?:http|ftp|tftp):\/\//i.test(t.from);
        if (cleartext) reasons.push("over an unencrypted channel");
        // Internal mirrors and artifact servers over http or by private IP are everyday; public IPs and /dev/shm are not.
        if (tool) reasons.push(`a known post-exploitation tool (${tool.name})`);
        if (publicIp || place.strong || tool) severity = "high";
        else if (staged) severity = "medium";
        else if (rawIp || cleartext) severity = "low";
        const file = t.to.replace(/^.*\//, "");
        if (file !== "" && new RegExp(`chmod\\s+(?:[+ugoa]*x|(?=[0-7]*[1357])[0-7]+)\\s+\\S*${file.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}\\b`).test(src.text)) {
          reasons.push("then made executable");
          severity = severity === "info" ? "low" : "high";
        }
        hits.push(
          commandHit(src, `${src.who} downloads ${clip(t.from, 80)} into ${place.where} as ${t.to} with ${t.tool}${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""}: ${clip(src.text)}.`, {
            ...(severity === "medium" ? {} : { severity }),
            entity: t.to.startsWith("/") && !t.to.endsWith("/") ? `path:${t.to}` : src.entity,
          }),
        );
        break;
      }
    }
    return hits;
  },
});
