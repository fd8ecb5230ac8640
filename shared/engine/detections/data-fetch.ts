// A download that only refreshes a data file, or requests a URL and keeps nothing: curl or wget writing a named file
// outside the temp and program directories, or to standard output or /dev/null, with nothing on the line running it (no shell, interpreter, chmod or source; no later command naming the
// file). DNS root hints (`curl -o /etc/bind/db.root https://www.internic.net/domain/named.root && rndc reload`), GeoIP
// databases, blocklists, CRLs and CA bundles are fetched this way by cron (BIND ARM, "root hints"; MaxMind's
// geoipupdate docs; ISC's and Unbound's documentation of root.hints refreshes), and hosting panels' cron for WordPress
// (`wget -q -O - "https://site/wp-cron.php?doing_wp_cron" >/dev/null 2>&1`: WordPress developer docs, "Hooking WP-Cron
// Into the System Task Scheduler"). A fetch-and-run is judged elsewhere.
import { isHttpUpload, simpleCommands, type SimpleCommand } from "./command-lines.js";
import { inTmpDir, SHELLS } from "./patterns.js";

/** Programs that run, source or make runnable what they are given. */
const RUNNERS: ReadonlySet<string> = new Set([
  ...SHELLS, "source", ".", "chmod", "install", "python", "python2", "python3", "perl", "ruby", "php", "node", "lua", "java", "eval", "exec", "crontab", "at", "systemd-run", "dpkg", "rpm", "apt", "apt-get", "yum", "dnf", "tar", "unzip",
]);
/** Where a fetched file would be a program, a library or start-up code, not data. */
const PROGRAM_PLACE = /^(?:\/usr)?(?:\/local)?\/s?bin\/|^\/(?:usr\/)?lib(?:64|exec)?\/|^\/etc\/(?:cron|profile\.d|init\.d|rc\.local|systemd|ld\.so)|\.(?:sh|py|pl|rb|so|bin|elf|run|deb|rpm|jar|js)$/;

/** The file a curl or wget writes (`-o`/`--output`, `-O`/`--output-document`, or a redirection), if any. */
function outputOf(cmd: SimpleCommand): string | undefined {
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i] as string;
    // `-o file`, or the flag last in a group (`-sSLo file`, wget's `-qO file`).
    if ((cmd.program === "curl" && (/^-[a-zA-Z]*o$/.test(a) || a === "--output")) || (cmd.program === "wget" && (/^-[a-zA-Z]*O$/.test(a) || a === "--output-document"))) return cmd.args[i + 1];
    const joined = /^(?:--output=|--output-document=)(.+)$/.exec(a);
    if (joined) return joined[1];
  }
  const redirect = />\s*([^\s|;&>]+)\s*$/.exec(cmd.raw);
  return redirect?.[1];
}

/** A system crontab's line starts with the user it runs as (`root curl ...`): the command is the rest. */
function withoutCronUser(cmd: SimpleCommand, index: number): SimpleCommand {
  const next = cmd.args[0];
  if (index > 0 || next === undefined || !/^[a-z_][a-z0-9_-]*$/.test(cmd.word)) return cmd;
  const program = next.slice(next.lastIndexOf("/") + 1);
  if (program !== "curl" && program !== "wget") return cmd;
  return { program, word: next, args: cmd.args.slice(1), raw: cmd.raw.slice(cmd.raw.indexOf(next)) };
}

/** Whether the command only fetches a data file (see above): every curl/wget downloads (no upload) into one, and nothing runs it. */
export function dataFetchOnly(command: string): boolean {
  const cmds = simpleCommands(command).map(withoutCronUser);
  const fetches = cmds.filter((c) => c.program === "curl" || c.program === "wget");
  if (fetches.length === 0) return false;
  const outputs: string[] = [];
  for (const f of fetches) {
    if (isHttpUpload(f)) return false;
    const out = outputOf(f) ?? (f.program === "curl" && !f.args.some((a) => /^-[a-zA-Z]*O$|^--remote-name/.test(a)) ? "-" : undefined);
    // To standard output (wget -O -, curl's default) or thrown away: a URL requested for its side effect (WordPress's
    // wp-cron.php, a webhook); a runner further down the pipe is caught below.
    if (out === "-" || out === "/dev/null") continue;
    if (out === undefined || out.startsWith("/dev/") || inTmpDir(out) || PROGRAM_PLACE.test(out)) return false;
    outputs.push(out);
  }
  const names = outputs.map((o) => o.slice(o.lastIndexOf("/") + 1)).filter((n) => n !== "");
  return cmds.every((c) => fetches.includes(c) || (!RUNNERS.has(c.program) && !names.some((n) => c.raw.includes(n))));
}
