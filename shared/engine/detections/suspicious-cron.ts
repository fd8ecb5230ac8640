// Cron entries that download, decode, open sockets or run from temp directories, unless they are a packaged job,
// a backup tool's run or a heartbeat ping.
import { heartbeatPing, knownAutomation } from "../baselines/index.js";
import { basename, rowsOf, str } from "../rows.js";
import type { HostData } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { dataFetchOnly } from "./data-fetch.js";
import { cronCommand } from "./command-lines.js";
import { hiddenProgramIn } from "./hidden-system-path-exec.js";
import { commandSignals, fetchedFrom, FETCH_AND_RUN_SIGNALS, firstToken, inTmpDir, isShell, type CommandSignal } from "./patterns.js";

/** Interpreters by file name: their scripts, not they, are what a job or a unit runs. */
const INTERPRETERS = /^(?:python[0-9.]*|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|node|nodejs|java|lua[0-9.]*|tclsh[0-9.]*)$/;

/**
 * A job that runs a program from a hidden directory nobody's toolchain uses (`@reboot ~/.x86_64-linux-gnu/vmcoreinfo`,
 * DISGOMOJI; a fourteenth blind corpus): hidden-system-path-exec weighs the place, this says it is what cron starts.
 * Strong at boot or outside the homes, where nothing of a person's own belongs; a person's `~/.scripts` on a schedule
 * is weak. `~` and `$HOME` are the crontab owner's home.
 */
function hiddenProgramSignal(command: string, event: string, home: string | undefined): CommandSignal | undefined {
  const expanded = home === undefined ? command : command.replace(/(^|[\s;&|(=])(?:~|\$HOME|\$\{HOME\})(?=\/)/g, (_m, lead: string) => `${lead}${home}`);
  const found = hiddenProgramIn(expanded);
  // A hidden name in a temp directory is TEMP_RUN_OR_HIDE's, weighed there by where a fetched script came from.
  if (found === undefined || inTmpDir(found.path)) return undefined;
  const inHome = found.hidden.where === "a home directory" || found.hidden.where === "root's home directory";
  const strong = event === "@reboot" || !inHome;
  return { why: `runs ${found.path} from the hidden directory ${found.hidden.segment} in ${found.hidden.where}${event === "@reboot" ? " at every boot" : ""}`, strong };
}

/** The programs systemd units start (ExecStart's program, from augeas), each with its unit file. */
function unitPrograms(host: HostData): Map<string, string> {
  const out = new Map<string, string>();
  for (const row of rowsOf(host, "augeas")) {
    if (!/\/Service\/ExecStart\/command$/.test(str(row, "node"))) continue;
    const program = firstToken(str(row, "value").replace(/^\s*[-@:+!]+/, ""));
    if (program.startsWith("/") && !out.has(program)) out.set(program, str(row, "path"));
  }
  return out;
}

/**
 * An @reboot job that starts a program a systemd unit also starts at boot: nothing a package or an administrator sets up
 * starts one daemon twice over, a dropper does so that either survives (Prometei's /usr/sbin/sqhost, UNC5174's
 * dnsloger: a unit and an @reboot line each).
 */
function bootTwiceSignal(command: string, event: string, units: ReadonlyMap<string, string>): CommandSignal | undefined {
  const program = firstToken(command);
  // A shell or an interpreter is everyone's program: what it runs is what would have to match.
  if (event !== "@reboot" || isShell(program) || INTERPRETERS.test(basename(program))) return undefined;
  const unit = units.get(program);
  return unit === undefined ? undefined : { why: `starts ${program} at every boot, which ${unit} also starts: one program started twice over at boot, as droppers do so that either survives`, strong: true };
}

/** The home of the user whose crontab this is (/var/spool/cron/crontabs/<user>, /var/spool/cron/<user>). */
function ownerHome(host: HostData, path: string): string | undefined {
  const user = /^\/var\/spool\/cron\/(?:crontabs\/)?([^/]+)$/.exec(path)?.[1];
  if (user === undefined) return undefined;
  const home = str(rowsOf(host, "users").find((u) => str(u, "username") === user), "directory");
  return home !== "" ? home.replace(/\/+$/, "") : user === "root" ? "/root" : undefined;
}

export const suspiciousCron = defineDetection({
  id: "suspicious-cron",
  title: "Suspicious cron job",
  reads: { crontab: ["command", "path", "event"], users: ["username", "directory"], augeas: ["node", "value", "path"] },
  severity: "medium",
  attack: ["T1053.003"],
  maturity: "test",
  category: "persistence",
  false_positives: "Site scripts that fetch with curl/wget or stage files in /tmp (packaged jobs, backup tools and heartbeat pings are kept quiet).",
  advice: {
    triage: ["Read the full crontab entry on {hosts} and fetch (without executing) the URL or file it references."],
    containment: ["Comment out the entry on {hosts} and block the download host at the egress."],
    investigation: ["Find when the entry was written (file mtime, shell history) and by which account."],
    remediation: ["Remove the entry and anything it installed; restrict cron to known jobs via configuration management."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const units = unitPrograms(host);
    for (const row of rowsOf(host, "crontab")) {
      const command = str(row, "command");
      const path = str(row, "path");
      // A system crontab's line starts with the user it runs as; its owner's home is only a user crontab's.
      const hidden = hiddenProgramSignal(cronCommand(row), str(row, "event"), ownerHome(host, path));
      const twice = bootTwiceSignal(cronCommand(row), str(row, "event"), units);
      const signals = [...commandSignals(command), ...(hidden ? [hidden] : []), ...(twice ? [twice] : [])];
      if (signals.length === 0) continue;
      const strong = signals.some((s) => s.strong);
      const evidence = [{ table: "crontab", row }];
      const entity = `cron:${path}`;
      const short = command.slice(0, 120);
      const known = knownAutomation({ kind: "cron", path, command });
      if (known && (!strong || known.baseline.startsWith("cron:packaged:"))) {
        hits.push({ summary: `Cron job in ${path || "crontab"} is standard automation (${known.source}): ${short}`, evidence, entity, kept_by: known.baseline });
        continue;
      }
      const ping = heartbeatPing(command);
      if (ping && commandSignals(ping.rest).length === 0) {
        hits.push({ summary: `Cron job in ${path || "crontab"} only pings a cron-monitoring service (${ping.explanation.source}): ${short}`, evidence, entity, kept_by: ping.explanation.baseline });
        continue;
      }
      // A job that fetches a script and runs it is weighed by where the script comes from (download-execute's rule):
      // a vendor's or the site's own update server over HTTPS is not a dropper's plain-HTTP address.
      const from = !strong && signals.every((s) => FETCH_AND_RUN_SIGNALS.has(s.why)) ? fetchedFrom(command) : undefined;
      // Over verified HTTPS from a named host into a data file nothing on the line runs (root hints, GeoIP, a
      // blocklist), or for the request alone (WordPress's wp-cron.php): an observation, not a finding (data-fetch.ts).
      if (from?.severity === "low" && dataFetchOnly(command)) {
        hits.push({ summary: `Cron job in ${path || "crontab"} fetches over HTTPS into a data file or for nothing but the request (nothing on the line runs what it gets): ${short}`, evidence, severity: "info", entity });
        continue;
      }
      hits.push({
        summary: `Cron job in ${path || "crontab"} ${signals.map((s) => s.why).join(", ")}${from ? `, ${from.why}` : ""}: ${short}`,
        evidence,
        severity: from ? from.severity : strong || signals.length >= 2 ? "high" : undefined,
        entity,
      });
    }
    return hits;
  },
});
