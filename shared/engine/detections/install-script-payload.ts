// A package's install script doing what no install needs: code a dependency runs on `npm install` (its preinstall,
// install, postinstall or prepare script) or `pip install` (setup.py) that runs the user's AI coding agent with its
// permission checks off, sweeps the disk with a secret scanner, reads the GitHub CLI's token or a credential file, asks
// the cloud metadata service for keys, posts to a request-capture host or a bare address, republishes packages, or
// writes the user's shell start-up files. Installs download (esbuild, sharp, puppeteer and electron fetch binaries),
// compile (node-gyp) and print banners; none of them does any of the above.
// How a process is known to be part of an install: npm's `npm_lifecycle_event` in its environment or an ancestor's, an
// installing package-manager command among its ancestors, or a working directory inside node_modules (where npm runs a
// package's scripts). Facts and sources: intel/install-scripts.ts (Nx s1ngularity, Shai-Hulud; ATT&CK T1195.002).
// Outside an install, an agent run unchecked is a developer's choice; with a prompt that asks for wallets, or sweeps
// the disk for keys and tokens, it is the same payload started some other way.
import { metadataCredentialPath } from "../intel/cloud-metadata.js";
import { credentialFileIn } from "../intel/credential-theft.js";
import { AGENT_CLIS, DISK_SWEEP, INSTALL_LIFECYCLE_EVENTS, INSTALLING_COMMANDS, SECRET_HUNT_WORDS, SECRET_SCANNERS, WALLET_WORDS } from "../intel/install-scripts.js";
import { stagingHost } from "../intel/staging-hosts.js";
import { isPublic } from "../net.js";
import { appendTo, num, processLabel, processTree, rowsOf, str } from "../rows.js";
import type { Row, Severity } from "../types.js";
import { inTmpDir } from "./patterns.js";
import { clip, isHttpUpload, isRawIpHost, simpleCommands, urlHost, urlsOf, type SimpleCommand } from "./command-lines.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

interface InstallContext {
  /** The process that makes it an install (the package manager, or the script npm started). */
  root: Row;
  /** In words: "npm's postinstall script of nx", "`npm install`", "node_modules/nx". */
  why: string;
  evidence: EvidenceRow[];
}

/** Ports an install reaches out on: the registries and git hosts (HTTPS, HTTP, SSH, git). */
const INSTALL_PORTS: ReadonlySet<number> = new Set([22, 80, 443, 9418]);
const ANCESTORS = 16;

/** The package directory of a working directory inside node_modules (`/app/node_modules/@nx/x/bin` -> `@nx/x`). */
function packageDir(cwd: string): string | undefined {
  const at = cwd.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const rest = cwd.slice(at + "/node_modules/".length).split("/");
  const name = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1] ?? ""}` : rest[0];
  return name === undefined || name === "" || name === ".bin" ? undefined : name;
}

function installingCommand(cmdline: string): boolean {
  return simpleCommands(cmdline).some((c) => {
    const verbs = INSTALLING_COMMANDS.get(c.program);
    if (verbs === undefined) return false;
    const verb = c.args.find((a) => !a.startsWith("-")) ?? null;
    return verbs.has(verb) || (verbs.has(null) && verb === null);
  }) || /\bpython[\d.]*\s+-m\s+pip\s+install\b/.test(cmdline);
}

/**
 * Whether (and why) the process runs as part of a package install, looking at it and up to 16 ancestors: npm's
 * lifecycle variable first (it names the script and the package), else the nearest installing command, else a package
 * directory as the working directory.
 */
function installContext(pid: string, byPid: Map<string, Row>, envs: Map<string, Row[]>): InstallContext | undefined {
  const seen = new Set<string>();
  let fallback: InstallContext | undefined;
  let cur = pid;
  for (let depth = 0; depth <= ANCESTORS && !seen.has(cur); depth++) {
    seen.add(cur);
    const proc = byPid.get(cur);
    if (proc === undefined) break;
    const own = envs.get(cur) ?? [];
    const event = own.find((e) => str(e, "key") === "npm_lifecycle_event" && INSTALL_LIFECYCLE_EVENTS.has(str(e, "value")));
    if (event !== undefined) {
      const pkg = own.find((e) => str(e, "key") === "npm_package_name" && !str(e, "value").startsWith("<"));
      return { root: proc, why: `npm's ${str(event, "value")} script${pkg ? ` of ${str(pkg, "value")}` : ""}`, evidence: [{ table: "process_envs", row: event }] };
    }
    if (fallback === undefined && depth > 0 && installingCommand(str(proc, "cmdline"))) fallback = { root: proc, why: `\`${clip(str(proc, "cmdline"), 60)}\``, evidence: [] };
    const pkg = fallback === undefined ? packageDir(str(proc, "cwd")) : undefined;
    if (pkg !== undefined) fallback = { root: proc, why: `a script in node_modules/${pkg}`, evidence: [] };
    cur = str(proc, "parent");
  }
  return fallback;
}

/** The AI agent CLI run with its checks off, and the option that does it. */
function uncheckedAgent(cmd: SimpleCommand): { program: string; option: string } | undefined {
  const cli = AGENT_CLIS.find((a) => a.program === cmd.program);
  const option = cli === undefined ? undefined : cmd.args.find((a) => cli.unchecked.test(a));
  return cli === undefined || option === undefined ? undefined : { program: cli.program, option };
}

/** Distinct secret-hunting words in a prompt (wallet, private key, .env...). */
function huntWords(text: string): string[] {
  const found = new Set<string>();
  const re = new RegExp(SECRET_HUNT_WORDS.source, "gi");
  for (let m = re.exec(text); m !== null && found.size < 8; m = re.exec(text)) found.add(m[0].toLowerCase().replace(/s$/, ""));
  return [...found];
}

/**
 * A prompt only a thief writes: it asks for wallets, or it sweeps the disk for two or more kinds of secret. A prompt
 * about rotating an API key in .env, run unchecked in a sandbox, is an engineer's.
 */
function thiefPrompt(text: string, words: readonly string[]): boolean {
  return WALLET_WORDS.test(text) || (words.length >= 2 && DISK_SWEEP.test(text));
}

const RC_APPEND = /(?:>>|\btee\s+-a)\s*["']?(?:~|\$HOME|\/root|\/home\/[^\s/'"]+)\/\.(?:bashrc|zshrc|profile|bash_profile|zprofile)\b/;

/** What the command does that no install needs, with the severity it earns; undefined when nothing. */
function payload(cmd: SimpleCommand): { what: string; severity: Severity } | undefined {
  const agent = uncheckedAgent(cmd);
  if (agent) {
    const words = huntWords(cmd.args.join(" "));
    return { what: `runs the AI coding agent ${agent.program} with ${agent.option}${words.length > 0 ? `, asking it for ${words.slice(0, 4).join(", ")}` : ""}`, severity: "high" };
  }
  if (SECRET_SCANNERS.has(cmd.program)) return { what: `sweeps for secrets with ${cmd.program}`, severity: "high" };
  if (cmd.program === "gh" && /^(?:auth|repo|api|secret|workflow)$/.test(cmd.args[0] ?? "")) return { what: `uses the GitHub CLI's login (gh ${cmd.args[0]})`, severity: "high" };
  if (cmd.program === "npm" && cmd.args.includes("publish")) return { what: "publishes packages with the user's npm token", severity: "high" };
  const file = credentialFileIn(cmd.raw);
  if (file) return { what: `reads ${file.label}`, severity: "high" };
  const metadata = metadataCredentialPath(cmd.raw);
  if (metadata) return { what: `asks ${metadata.provider} for credentials`, severity: "high" };
  if (isHttpUpload(cmd)) {
    for (const u of urlsOf(cmd.raw)) {
      const host = urlHost(u);
      const staged = stagingHost(host);
      if (staged) return { what: `posts data to ${staged.host}, a request-capture or file-drop service`, severity: "high" };
      if (isRawIpHost(host) && isPublic(host.replace(/^\[|\]$/g, ""))) return { what: `posts data to the bare address ${host}`, severity: "high" };
    }
  }
  if (RC_APPEND.test(cmd.raw)) return { what: "writes into a shell start-up file", severity: "high" };
  return undefined;
}

export const installScriptPayload = defineDetection({
  id: "install-script-payload",
  title: "Package install script doing what no install needs",
  reads: {
    processes: ["pid", "parent", "name", "path", "cmdline", "cwd"],
    process_envs: ["pid", "key", "value"],
    process_open_sockets: ["pid", "remote_address", "remote_port"],
  },
  severity: "high",
  attack: ["T1195.002", "T1552.001", "T1059.007"],
  maturity: "experimental",
  category: "credential-access",
  false_positives: "A package whose install legitimately talks to a licence or telemetry server on an unusual port; a developer's own prepare script that runs a secret scanner over the repository before commits (rare; it usually runs at commit time, not install).",
  advice: {
    triage: ["Name the package on {hosts}: the script's directory under node_modules, `npm ls` for who depends on it, and its version against the registry's advisories."],
    containment: ["Revoke every token the installing user could read on {hosts} (GitHub, npm, cloud keys, SSH keys) before anything else; the payloads publish them within minutes."],
    investigation: ["Look for what the payload leaves: /tmp/inventory.txt, new public repositories or workflows under the user's GitHub account, packages republished under their npm account, lines added to ~/.bashrc and ~/.zshrc."],
    remediation: ["Pin dependencies with a lockfile, install with `--ignore-scripts` where builds allow, and keep AI agents' permission-bypass options out of shared machines."],
  },
  evaluate(host) {
    const { byPid } = processTree(host);
    const envs = new Map<string, Row[]>();
    for (const e of rowsOf(host, "process_envs")) {
      const key = str(e, "key");
      if (key === "npm_lifecycle_event" || key === "npm_package_name") appendTo(envs, str(e, "pid"), e);
    }
    // Each process's install, walked up its ancestors once (a process with many sockets is asked about for each).
    const contexts = new Map<string, InstallContext | undefined>();
    const contextOf = (pid: string): InstallContext | undefined => {
      if (!contexts.has(pid)) contexts.set(pid, installContext(pid, byPid, envs));
      return contexts.get(pid);
    };
    const hits: DetectionHit[] = [];
    const flagged = new Set<string>();
    for (const [pid, proc] of byPid) {
      const cmds = simpleCommands(str(proc, "cmdline"));
      const found = cmds.map(payload).find((p) => p !== undefined) ?? outlivedItsInstall(proc, byPid);
      if (found === undefined) continue;
      const ctx = contextOf(pid);
      if (ctx === undefined) {
        // Outside an install, only an agent let loose on a prompt that hunts wallets and keys.
        const agent = cmds.map(uncheckedAgent).find((a) => a !== undefined);
        const cmdline = str(proc, "cmdline");
        const words = huntWords(cmdline);
        if (agent === undefined || !thiefPrompt(cmdline, words)) continue;
        flagged.add(pid);
        hits.push({
          summary: `Process ${processLabel(proc, pid)} (pid ${pid}) runs the AI coding agent ${agent.program} with ${agent.option} and a prompt that hunts ${words.slice(0, 4).join(", ")}: the Nx s1ngularity payload's way of making a developer's own agent inventory their secrets (${clip(str(proc, "cmdline"), 100)}).`,
          evidence: [{ table: "processes", row: proc }],
          entity: `pid:${pid}`,
          severity: "high",
        });
        continue;
      }
      flagged.add(pid);
      hits.push(installHit(pid, proc, ctx, found));
    }
    // Connections an install has no use for: a process of an install talking to a public address on a port that no
    // registry or git host uses.
    for (const s of rowsOf(host, "process_open_sockets")) {
      const pid = str(s, "pid");
      const port = num(s, "remote_port") ?? 0;
      const remote = str(s, "remote_address");
      if (flagged.has(pid) || port <= 0 || INSTALL_PORTS.has(port) || !isPublic(remote)) continue;
      const proc = byPid.get(pid);
      const ctx = proc === undefined ? undefined : contextOf(pid);
      if (proc === undefined || ctx === undefined) continue;
      flagged.add(pid);
      hits.push({ ...installHit(pid, proc, ctx, { what: `connects to ${remote}:${port}, a port no package registry or git host uses`, severity: "medium" }), evidence: [{ table: "process_open_sockets", row: s }, { table: "processes", row: proc }, ...ctxEvidence(pid, ctx)] });
    }
    return hits;
  },
});

/**
 * A program from a package's directory (or a temp one) that an install started and that still runs with its install
 * gone: re-parented to init, it was detached to outlive `npm install` (ua-parser-js 0.7.29's preinstall started its
 * miner this way, GHSA-pjwm-rvh2-c87w). Install steps (esbuild's binary check, node-gyp) end with their install.
 */
function outlivedItsInstall(proc: Row, byPid: ReadonlyMap<string, Row>): { what: string; severity: Severity } | undefined {
  const parent = str(proc, "parent");
  const path = str(proc, "path");
  if (!(parent === "1" || (parent !== "" && parent !== "0" && !byPid.has(parent)))) return undefined;
  if (!path.includes("/node_modules/") && !inTmpDir(path)) return undefined;
  return { what: `still runs ${path} with its install gone (re-parented to init): detached to outlive the install`, severity: "high" };
}

function ctxEvidence(pid: string, ctx: InstallContext): EvidenceRow[] {
  return [...(str(ctx.root, "pid") === pid ? [] : [{ table: "processes", row: ctx.root }]), ...ctx.evidence];
}

function installHit(pid: string, proc: Row, ctx: InstallContext, found: { what: string; severity: Severity }): DetectionHit {
  return {
    summary: `Process ${processLabel(proc, pid)} (pid ${pid}), run by ${ctx.why}, ${found.what} (${clip(str(proc, "cmdline"), 100)}): a package's install script has no reason to, and the 2025 npm worms (s1ngularity, Shai-Hulud) did exactly this.`,
    evidence: [{ table: "processes", row: proc }, ...ctxEvidence(pid, ctx)],
    entity: `pid:${pid}`,
    severity: found.severity,
  };
}
