// A web server or application runtime that is the parent of a shell or of reconnaissance tools: the process tree a
// web shell (or an exploited web app) leaves behind. Facts: Sigma "Linux Webshell Indicators"
// (rules/linux/process_creation/proc_creation_lnx_webshell_detection.yml), Sigma "Webshell Remote Command
// Execution" (auditd, euid 33), NSA/ASD "Detect and prevent web shell malware" (2020).
import { basename, processTree, rowsOf, str, withoutTrailingSlashes } from "../rows.js";
import type { Row } from "../types.js";
import { WEB_HELPERS } from "../baselines/service-helpers.js";
import { clip } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { NETCAT_LIKE, SHELLS } from "./patterns.js";
import { DOWNLOADERS, judgeChild, multiprocessingWorker, onlyHelpers, RECON_PROGRAMS, webRole } from "./service-roles.js";
import { allMatches } from "../matches.js";

/** Python's platform.processor()/architecture() run `uname -p` / `file`: harmless under a WSGI app. */
function pythonPlatformProbe(child: Row): boolean {
  return /^(?:\/\S*\/)?uname(?:\s+-[pmrsv]+)+\s*$/.test(str(child, "cmdline").trim());
}

/** Where a Java/app server is installed (catalina.home/base, jboss.home.dir, /opt/<app>): its own scripts live there. */
function installRoots(parent: Row): string[] {
  const roots = allMatches(/-D(?=[\w.]*=\/[^\s"'])[\w.]*?(?:home|base|dir)[\w.]*=(\/[^\s"']+)/gi, str(parent, "cmdline")).map((m) => m[1] ?? "");
  const top = /^\/(?:opt|srv|usr\/local|usr\/share)\/[^/]+/.exec(str(parent, "path"));
  if (top) roots.push(top[0]);
  return roots.filter((r) => r.length > 1).map((r) => withoutTrailingSlashes(r));
}

/** The child only runs scripts from the parent's own install directory. */
function ownHelper(child: Row, parent: Row): boolean {
  const roots = installRoots(parent);
  const paths = str(child, "cmdline").split(/\s+/).filter((w) => w.startsWith("/") && !/^\/(?:usr\/)?s?bin\/(?:ba|da)?sh$/.test(w));
  return roots.length > 0 && paths.length > 0 && paths.every((p) => roots.some((r) => p === r || p.startsWith(`${r}/`)));
}

/**
 * Web servers by their systemd service cgroup (/system.slice/php8.1-fpm.service): what else runs in that cgroup was
 * started by the service, even when the process that started it has exited. Only a service's own cgroup, never the
 * session or init scopes many unrelated processes share.
 */
function webServicesByCgroup(procs: readonly Row[]): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const p of procs) {
    const cgroup = str(p, "cgroup_path");
    if (!/\/[\w@.-]+\.service$/.test(cgroup) || out.has(cgroup) || webRole(p) === undefined) continue;
    out.set(cgroup, p);
  }
  return out;
}

export const webshellShellSpawn = defineDetection({
  id: "webshell-shell-spawn",
  title: "Web server or app runtime spawning a shell or recon tools (web shell)",
  reads: { processes: ["pid", "parent", "name", "path", "cmdline", "uid", "cgroup_path"] },
  severity: "high",
  attack: ["T1505.003", "T1059.004"],
  maturity: "test",
  category: "persistence",
  false_positives:
    "Apache piped logs (rotatelogs) and PHP mail() run through /bin/sh -c and are ignored; CGI scripts, web apps that shell out to converters, and Node/Python/Ruby apps that run system tools can still match.",
  advice: {
    triage: [
      "On {hosts}, record the web process, the child command line and the request that caused it (access log at the child's start time).",
      "Look for recently modified files in the document root and upload directories (find -newer, .php/.jsp files in uploads/).",
    ],
    containment: ["Take the site on {hosts} out of the load balancer or block the offending source; keep the host up for forensics."],
    investigation: ["Search the web root for the web shell (eval/base64_decode/system in .php, unexpected .jsp), and the access log for the requests that reached it."],
    remediation: ["Remove the web shell, patch the application or plugin that let it in, rotate secrets the web user could read, and consider a rebuild."],
  },
  evaluate(host) {
    const procs = rowsOf(host, "processes");
    const { byPid, children } = processTree(host);
    const hits: DetectionHit[] = [];
    const services = webServicesByCgroup(procs);
    for (const child of procs) {
      const direct = byPid.get(str(child, "parent"));
      // A child the web server started and then left (its parent exited, the child was reparented to init) still sits
      // in the server's service cgroup: judged as the server's child. Only when its parent is gone or is init: a live
      // parent of another kind (runsv in GitLab Omnibus' one service) is the child's own story.
      const orphaned = direct === undefined || str(direct, "pid") === "1" ? services.get(str(child, "cgroup_path")) : undefined;
      const parent = orphaned ?? direct;
      if (parent === undefined || str(parent, "pid") === str(child, "pid")) continue;
      const role = webRole(parent);
      if (role === undefined) continue;
      const childName = basename(str(child, "name") || str(child, "path")).toLowerCase();
      const interesting = SHELLS.has(childName) || RECON_PROGRAMS.has(childName) || DOWNLOADERS.has(childName) || NETCAT_LIKE.has(childName) || childName === "cat" || /^(?:python[0-9.]*|perl|ruby|php[0-9.]*)$/.test(childName);
      if (!interesting || webRole(child) !== undefined) continue;
      const grandchildren = children.get(str(child, "pid")) ?? [];
      const verdict = judgeChild(child, grandchildren);
      if (onlyHelpers(verdict.programs, WEB_HELPERS.programs) && !verdict.strong) continue;
      // multiprocessing's worker is the app's own, as long as it starts nothing (its bootstrap runs whatever it is sent).
      if (role.tier === "app" && (pythonPlatformProbe(child) || (multiprocessingWorker(child, parent) && grandchildren.length === 0))) continue;
      if (verdict.why === "" && ownHelper(child, parent)) continue;
      const catSensitive = childName === "cat" && /\/etc\/|\/proc\//.test(str(child, "cmdline"));
      let severity: DetectionHit["severity"];
      let why = verdict.why;
      if (verdict.strong) severity = "high";
      else if (why !== "" || catSensitive) {
        why = why || "reads system files";
        severity = role.tier === "server" ? "high" : "medium";
      } else if (role.tier === "server" && SHELLS.has(childName) && !/\/cgi-bin\//.test(str(child, "cmdline"))) {
        why = "runs a shell command";
        severity = "info";
      } else continue;
      const pid = str(child, "pid");
      hits.push({
        summary: orphaned
          ? `${childName} (pid ${pid}, uid ${str(child, "uid") || "?"}) runs in the service cgroup of ${role.label} (pid ${str(parent, "pid")}, ${str(child, "cgroup_path")}), started by it and left behind (its parent is now pid ${str(child, "parent") || "?"}), and ${why}: ${clip(str(child, "cmdline") || str(child, "path"))}.`
          : `${role.label} (pid ${str(parent, "pid")}, uid ${str(parent, "uid") || "?"}) started ${childName} (pid ${pid}, uid ${str(child, "uid") || "?"}), which ${why}: ${clip(str(child, "cmdline") || str(child, "path"))}.`,
        evidence: [
          { table: "processes", row: child },
          { table: "processes", row: parent },
          ...grandchildren.slice(0, 5).map((row) => ({ table: "processes", row })),
        ],
        severity: severity === "high" ? undefined : severity,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
