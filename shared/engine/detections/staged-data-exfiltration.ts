// Data staged in a temp directory and sent off the host: an archive written into /tmp, /var/tmp or /dev/shm (often a
// hidden name there), or any file there, uploaded with curl or wget, copied with scp or rsync or streamed to netcat,
// to an address outside the site. credential-exfiltration names the credential files themselves;
// this one needs no idea what the data is, only how it left.
// Facts: ATT&CK T1074.001 (Local Data Staging), T1560.001 (Archive via Utility), T1048 and T1567 (exfiltration over
// an alternative protocol or a web service); Sigma "Suspicious Curl File Upload - Linux"
// (proc_creation_lnx_susp_curl_fileupload.yml); the LOTS project's anonymous file-drop hosts (intel/staging-hosts.ts).
import { stagingHost } from "../intel/staging-hosts.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, isRawIpHost, PROCESS_COLUMNS, simpleCommands, urlHost, USER_COLUMNS, userMaps, type SimpleCommand } from "./command-lines.js";
import { archiveOf, dropUsedKeys, remoteTarget, sendsData } from "./credential-exfiltration.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir, outsideHost } from "./patterns.js";

/**
 * Whether the command sends data somewhere (credential-exfiltration's senders), but not `aws s3`: a backup archived in
 * /tmp and copied to the organisation's bucket is the commonest job of all, and a bucket name says nothing of whose
 * it is (credential-exfiltration still names credential files sent there).
 */
function sends(cmd: SimpleCommand): boolean {
  return cmd.program !== "aws" && sendsData(cmd);
}

const RCLONE_COPIES: ReadonlySet<string> = new Set(["copy", "copyto", "move", "moveto", "sync"]);

/**
 * An rclone copy to a remote (`rclone copy /tmp/x mega:bkp`): the remote and the temp files named before it. Its
 * backend (S3, B2, MEGA, Drive...) is in the config, so, like `aws s3`, a remote says nothing of whose it is: it counts
 * only with a dropper's signs (rclone itself run from a temp directory, a hidden file, an archive staged there), the
 * way ransomware crews use it (CISA #StopRansomware advisories: rclone to MEGA).
 */
function rcloneCopy(cmd: SimpleCommand): { remote: string; files: string[]; sources: string[]; renamed: boolean; upload: boolean } | undefined {
  if (!RCLONE_COPIES.has(cmd.args[0] ?? "")) return undefined;
  // Renamed (pg_walsync, a "sync agent"), rclone is still known by the options only it takes.
  const renamed = cmd.program !== "rclone";
  if (renamed && !cmd.args.some((a) => RCLONE_ONLY_OPTION.test(a))) return undefined;
  const at = cmd.args.findIndex((a, i) => i > 0 && /^[A-Za-z0-9_][\w.-]*:/.test(a) && !a.startsWith("-"));
  if (at < 0) return undefined;
  const sources = cmd.args.slice(1, at).filter((a) => !a.startsWith("-"));
  // An upload: local sources, then the remote as the last operand (`rclone copy mega:Photos ~/Pictures` downloads).
  const operands = cmd.args.slice(1).filter((a, i, all) => !a.startsWith("-") && !(i > 0 && /^--?[\w-]+$/.test(all[i - 1] ?? "") && !RCLONE_FLAGS_WITHOUT_VALUE.has(all[i - 1] ?? "")));
  const upload = sources.length > 0 && operands[operands.length - 1] === cmd.args[at];
  return { remote: cmd.args[at] as string, files: sources.filter((a) => inTmpDir(a)), sources, renamed, upload };
}

/** rclone flags that take no value, so the word after one is an operand (rclone docs, Flags). */
const RCLONE_FLAGS_WITHOUT_VALUE: ReadonlySet<string> = new Set(["-q", "--quiet", "-P", "--progress", "-v", "-vv", "--verbose", "--fast-list", "--dry-run", "-n", "--checksum", "-c", "--update", "-u", "--no-traverse", "--ignore-existing", "--auto-confirm", "--use-server-modtime", "--create-empty-src-dirs", "--delete-after", "--delete-before", "--delete-during", "--immutable", "-I", "--ignore-times", "--size-only", "--no-check-certificate", "--stats-one-line"]);

/**
 * Personal file-sharing services an organisation seldom sanctions, as remote names spell them (rclone's backends:
 * mega, pcloud, yandex...). Google Drive, OneDrive and Dropbox are left out: many sites use them for work, and a
 * person's copy of a report there is no signal (detections.test.ts).
 */
const CONSUMER_STORAGE: ReadonlyArray<[RegExp, string]> = [
  [/mega/, "MEGA"], [/pcloud/, "pCloud"], [/yandex/, "Yandex Disk"], [/mediafire/, "MediaFire"], [/4shared/, "4shared"], [/filen/, "Filen"], [/koofr/, "Koofr"],
];

/** The service a remote's name (before its colon) names as a word of it (`mega-arch`, `my_dropbox`, `gdrive2`). */
function consumerStorageRemote(remote: string): string | undefined {
  const name = remote.slice(0, remote.indexOf(":")).toLowerCase();
  // Object storage under a consumer brand's name (Yandex Cloud's S3, a bucket) is a business service.
  if (/(?:^|[^a-z0-9])(?:s3|bucket|cloud)(?:[^a-z]|$)/.test(name)) return undefined;
  for (const [re, service] of CONSUMER_STORAGE) {
    const m = re.exec(name);
    const after = name[m ? m.index + m[0].length : 0] ?? "";
    if (m && (m.index === 0 || /[^a-z0-9]/.test(name[m.index - 1] ?? "")) && !/[a-z]/.test(after)) return service;
  }
  return undefined;
}

/** Options of rclone's and no other common tool's (rclone docs, Flags). */
const RCLONE_ONLY_OPTION = /^--(?:transfers|checkers|multi-thread-streams|multi-thread-cutoff|fast-list|auto-confirm|drive-[\w-]+|s3-[\w-]+|b2-[\w-]+|mega-[\w-]+|onedrive-[\w-]+|dropbox-[\w-]+|gcs-[\w-]+|azureblob-[\w-]+|tpslimit|max-transfer|use-server-modtime)(?:=|$)/;

/** The host of a destination (a URL, user@host:path, or a bare host). */
function destinationHost(dest: string): string {
  return urlHost(dest) || (/^(?:[^@/\s:]+@)?([^/\s:]+)/.exec(dest)?.[1] ?? dest).toLowerCase();
}

/** A database dump or an archive by its name (mysqldump's .sql, pg_dump's .dump, .tar.gz, .zip, a .bak). */
const DUMP_FILE = /\.(?:sql|dump|bak|tar|tgz|tbz2?|txz|zip|7z|rar)(?:\.(?:gz|bz2|xz|zst|lz4))?$/i;

/** The words a sending command names, split at `=`, `@` and `<` (`-F f=@/dev/shm/x`, `-T /tmp/x`), quotes off, once each. */
function sentWords(cmd: SimpleCommand, dest: string): string[] {
  const words = dropUsedKeys(cmd.program, cmd.raw).split(/\s+/).flatMap((w) => w.split(/[=@<]/));
  return [...new Set(words.map((w) => w.replace(/^["']|["']$/g, "")).filter((w) => w !== dest))];
}

/** Absolute paths the command sends that are named like a dump or an archive. */
function dumpFilesOf(cmd: SimpleCommand, dest: string): string[] {
  return sentWords(cmd, dest).filter((w) => w.startsWith("/") && DUMP_FILE.test(w));
}

/** Files in a temp directory the command names as what it sends (`-F f=@/dev/shm/x`, `-T /tmp/x`, `scp /tmp/x h:`). */
function tempFilesOf(cmd: SimpleCommand, dest: string): string[] {
  return sentWords(cmd, dest).filter((w) => inTmpDir(w));
}

export const stagedDataExfiltration = defineDetection({
  id: "staged-data-exfiltration",
  title: "Data staged in a temp directory sent off the host",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "medium",
  attack: ["T1074.001", "T1560.001", "T1048", "T1567"],
  maturity: "experimental",
  category: "exfiltration",
  false_positives: "Backup or log-shipping scripts that write their archive to /tmp and upload it to an outside service (a cloud bucket, a vendor's support portal).",
  advice: {
    triage: ["On {hosts}, note what was archived or staged, its size, and the destination; check egress logs for the transfer."],
    containment: ["Block the destination and remove the staged files after they are captured."],
    investigation: ["Find how the data was gathered (shell history around the archive), by which account, and what else it read."],
    remediation: ["Rotate credentials the staged data held; restrict egress from {hosts} to the destinations they need."],
  },
  evaluate(host) {
    const sources = commandSources(host, userMaps(host));
    // Archives written into a temp directory, by any command seen on the host (the upload may come later).
    const archives = new Map<string, string>();
    for (const src of sources) {
      for (const cmd of simpleCommands(src.text)) {
        const a = archiveOf(cmd);
        if (a !== undefined && inTmpDir(a.archive)) archives.set(a.archive, a.sources.trim());
      }
    }
    const hits: DetectionHit[] = [];
    for (const src of sources) {
      for (const cmd of simpleCommands(src.text)) {
        const rclone = rcloneCopy(cmd);
        if (rclone) {
          const file = rclone.files[0];
          const packed = file === undefined ? undefined : archives.get(file);
          const dropped = inTmpDir(cmd.word);
          const hidden = file !== undefined && /\/\.[^/]+/.test(file);
          if (file === undefined || !(dropped || rclone.renamed || hidden || packed !== undefined)) {
            // Wherever the data sits, a remote named for a personal file-sharing service (`mega-arch:`, `gdrive:`):
            // the name is whoever configured it's, but a server's data copied to one is what leaving insiders and
            // ransomware crews do (CISA #StopRansomware: rclone to MEGA; a fourteenth blind corpus's DBA).
            const service = rclone.upload ? consumerStorageRemote(rclone.remote) : undefined;
            if (service !== undefined) {
              hits.push(commandHit(src, `${src.who} copies ${clip(rclone.sources.join(" "), 60) || "files"} with rclone to the remote ${clip(rclone.remote, 40)}, named for ${service}, a personal file-sharing service: ${clip(src.text)}.`, {}));
              break;
            }
            continue;
          }
          const why = [
            rclone.renamed ? `rclone renamed ${cmd.program}` : "",
            dropped ? `rclone itself run from ${cmd.word}` : "",
            packed !== undefined ? `an archive of ${clip(packed, 60) || "files"} written there` : "",
            hidden ? "under a hidden name" : "",
          ].filter((w) => w !== "");
          hits.push(commandHit(src, `${src.who} sends ${file} from a temp directory (${why.join(", ")}) to the rclone remote ${clip(rclone.remote, 40)}: ${clip(src.text)}.`, { severity: "high" }));
          break;
        }
        if (!sends(cmd)) continue;
        const dest = remoteTarget(cmd);
        if (dest === undefined) continue;
        const destHost = destinationHost(dest);
        if (!outsideHost(destHost)) continue;
        const files = tempFilesOf(cmd, dest);
        const staged = [...archives.keys()].filter((a) => cmd.raw.includes(a));
        const sent = [...new Set([...staged, ...files])];
        if (sent.length === 0) {
          // Staged anywhere else, a database dump or an archive posted to a bare address or a file-drop host.
          const dump = dumpFilesOf(cmd, dest)[0];
          const bare = isRawIpHost(destHost) ? `the bare address ${destHost}` : stagingHost(destHost) ? `${destHost}, an anonymous file-drop host` : undefined;
          if (dump !== undefined && bare !== undefined) {
            hits.push(commandHit(src, `${src.who} sends the dump or archive ${dump}${/\/\.[^/]+$/.test(dump) ? " (under a hidden name)" : ""} to ${bare} with ${cmd.program}: ${clip(src.text)}.`, { severity: "high" }));
            break;
          }
          continue;
        }
        const file = sent[0] as string;
        const packed = archives.get(file);
        const drop = stagingHost(destHost);
        const hidden = /\/\.[^/]+/.test(file);
        const why = [
          packed !== undefined ? `an archive of ${clip(packed, 60) || "files"} written there` : "",
          hidden ? "under a hidden name" : "",
          drop ? `to ${drop.host}, an anonymous file-drop host` : "",
        ].filter((w) => w !== "");
        hits.push(
          commandHit(src, `${src.who} sends ${file} from a temp directory${why.length > 0 ? ` (${why.join(", ")})` : ""} to ${clip(dest, 60)} with ${cmd.program}: ${clip(src.text)}.`, {
            severity: packed !== undefined || hidden || drop !== undefined ? "high" : undefined,
          }),
        );
        break;
      }
    }
    return hits;
  },
});
