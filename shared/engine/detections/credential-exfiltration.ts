// A credential file shipped off the host: curl/wget uploads of /etc/shadow, private keys, cloud and registry
// credentials; scp/rsync/aws s3 of such files to elsewhere; a credential file piped into curl or netcat.
// Facts: Sigma "Suspicious Curl File Upload - Linux" (proc_creation_lnx_susp_curl_fileupload.yml) and
// "Data Exfiltration with Wget" (lnx_auditd_data_exfil_wget.yml), Atomic Red Team T1048 / T1105 "curl upload",
// Cado and Unit 42 write-ups on TeamTNT shipping .aws/credentials and .docker/config.json with curl -F.
// Two-step theft counts too: credentials packed into an archive (tar czf /tmp/.x.tgz ~/.ssh ~/.aws, zip, 7z) and that
// archive shipped by a later command (ATT&CK T1560.001 "Archive via Utility" followed by T1048).
import { CREDENTIAL_FILES } from "../intel/credential-theft.js";
import { clip, commandHit, commandSources, CURL_UPLOAD, HISTORY_COLUMNS, isLoopbackUrl, WGET_POST, PROCESS_COLUMNS, shellWords, simpleCommands, urlsOf, USER_COLUMNS, userMaps, type SimpleCommand } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { NETCAT_LIKE } from "./patterns.js";

/** Whole credential directories archived and shipped (tar czf - ~/.ssh | curl -T -). */
const CREDENTIAL_DIR = /(?:^|[\s'"=])(?:~|\$HOME|\/root|\/home\/[^/\s]+|\/home\/\*)\/\.(?:ssh|aws|kube|docker|gnupg|config\/gcloud|azure)\/?(?=$|[\s'"])/;

/** Options whose value is a key or config the tool *uses*, not a file it sends (scp -i key, curl --key, rsync -e "ssh -i"). */
const USED_BY: Readonly<Record<string, RegExp>> = {
  ssh: /(?:^|\s)(?:-i|-F|-o|-e|--rsh)(?:\s+|=)(?:"[^"]*"|'[^']*'|\S+)/g,
  curl: /(?:^|\s)(?:--key|--cert|-E|--cacert)(?:\s+|=)\S+/g,
  any: /(?:^|\s)(?:-i|--key|--kubeconfig|--identity)(?:\s+|=)\S+|IdentityFile=\S+/g,
};
const SSH_LIKE: ReadonlySet<string> = new Set(["scp", "rsync", "sftp", "ssh"]);

export function dropUsedKeys(program: string, raw: string): string {
  const own = SSH_LIKE.has(program) ? USED_BY.ssh : program === "curl" ? USED_BY.curl : undefined;
  const once = own ? raw.replace(own, " ") : raw;
  return once.replace(USED_BY.any ?? /$^/, " ");
}


/** What a credential file is, when the text names one (after dropping the keys a tool only uses). */
function namedCredential(text: string): string | undefined {
  const stripped = text;
  const file = CREDENTIAL_FILES.find((f) => f.pattern.test(stripped));
  if (file) return file.label;
  const dir = CREDENTIAL_DIR.exec(stripped);
  return dir ? `${dir[0].trim()} directory` : undefined;
}

/** A remote destination: host:path for scp/rsync (not a local path), or a URL that is not loopback. */
export function remoteTarget(cmd: SimpleCommand): string | undefined {
  const plain = cmd.args.filter((a) => !a.startsWith("-"));
  if (["scp", "rsync", "sftp"].includes(cmd.program)) {
    const dest = plain[plain.length - 1] ?? "";
    if (/^(?:[^@/\s:]+@)?[^/\s:]+:/.test(dest) && !/^(?:[^@]+@)?(?:localhost|127\.0\.0\.1):/.test(dest)) return dest;
    return undefined;
  }
  const url = urlsOf(cmd.raw).find((u) => !isLoopbackUrl(u));
  if (url) return url;
  if (NETCAT_LIKE.has(cmd.program)) {
    const host = plain.find((a) => /^[\w.-]+$/.test(a) && !/^\d+$/.test(a) && !/^(?:localhost|127\.0\.0\.1)$/.test(a));
    return host;
  }
  if (cmd.program === "aws" && cmd.args[0] === "s3" && ["cp", "mv", "sync"].includes(cmd.args[1] ?? "")) return cmd.args.find((a) => a.startsWith("s3://"));
  return undefined;
}

/** For copy-style tools, the sources only (not the destination, not option values). */
function copySources(cmd: SimpleCommand): string | undefined {
  if (!["scp", "rsync", "aws"].includes(cmd.program)) return undefined;
  const words = shellWords(dropUsedKeys(cmd.program, cmd.raw)).slice(1).filter((a) => !a.startsWith("-"));
  if (cmd.program === "aws") return words.slice(2).filter((a) => !a.startsWith("s3://")).join(" ");
  return words.slice(0, -1).join(" ");
}

/** The archive a command writes and what it packs: `tar czf A srcs`, `tar -c -f A srcs`, `zip -r A srcs`, `7z a A srcs`. */
export function archiveOf(cmd: SimpleCommand): { archive: string; sources: string } | undefined {
  const words = cmd.args;
  if (cmd.program === "tar" || cmd.program === "bsdtar") {
    const bundle = words.findIndex((w) => /^-?[A-Za-z]*f$/.test(w) && w.slice(0, -1).includes("c") && !w.startsWith("--")); // one scan a word (`[A-Za-z]*c[A-Za-z]*f` was quadratic in it)
    const fileOpt = bundle >= 0 ? bundle : words.findIndex((w) => w === "-f" || w === "--file");
    if (fileOpt < 0 || !words.some((w) => /^-?[A-Za-z]*c/.test(w) && !w.startsWith("--") || w === "--create")) return undefined;
    const archive = words[fileOpt + 1];
    if (archive === undefined || archive === "-") return undefined;
    return { archive, sources: words.filter((_, i) => i !== fileOpt && i !== fileOpt + 1).join(" ") };
  }
  if (cmd.program === "zip" || cmd.program === "7z" || cmd.program === "7za") {
    const plain = words.filter((w) => !w.startsWith("-") && !(cmd.program !== "zip" && w === "a"));
    const archive = plain[0];
    return archive === undefined ? undefined : { archive, sources: plain.slice(1).join(" ") };
  }
  return undefined;
}

/** Archives of credentials written on the host (archive path -> what it holds), from every command seen. */
function credentialArchives(texts: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of texts) {
    for (const cmd of simpleCommands(text)) {
      const a = archiveOf(cmd);
      if (a === undefined) continue;
      const file = namedCredential(` ${a.sources} `);
      if (file !== undefined) out.set(a.archive, file);
    }
  }
  return out;
}

/** Whether the command sends data off the host (an upload, a copy to a host, a stream to netcat, an S3 copy), not a download. */
export function sendsData(cmd: SimpleCommand): boolean {
  if (cmd.program === "curl") return CURL_UPLOAD.test(` ${dropUsedKeys("curl", cmd.raw)} `);
  if (cmd.program === "wget") return WGET_POST.test(cmd.raw);
  if (cmd.program === "aws") return cmd.args[0] === "s3";
  return ["scp", "rsync", "sftp"].includes(cmd.program) || NETCAT_LIKE.has(cmd.program);
}

interface Exfil {
  file: string;
  dest: string;
  how: string;
}

function judge(text: string, archives: ReadonlyMap<string, string> = new Map()): Exfil | undefined {
  const commands = simpleCommands(text);
  // A credential named anywhere in a line with command substitution, worked out once for the whole text, not once
  // per sending command (quadratic on a long line of `nc a 1;`; a ReDoS audit).
  let inlineFile: string | null | undefined;
  const inlineCredential = (): string | undefined => {
    if (inlineFile === undefined) inlineFile = /\$\(|`/.test(text) ? (namedCredential(dropUsedKeys("", text)) ?? null) : null;
    return inlineFile ?? undefined;
  };
  for (const [i, cmd] of commands.entries()) {
    if (!sendsData(cmd)) continue;
    const dest = remoteTarget(cmd);
    if (dest === undefined) continue;
    // The file is in this command (curl -F f=@/etc/shadow, scp id_rsa host:) or in what feeds it (cat x | nc h p).
    const own = namedCredential(copySources(cmd) ?? dropUsedKeys(cmd.program, cmd.raw));
    const fed = commands.slice(Math.max(0, i - 3), i).map((c) => namedCredential(dropUsedKeys(c.program, c.raw))).find((f) => f !== undefined);
    const packed = [...archives.keys()].find((a) => cmd.raw.split(/[\s=@'"]+/).includes(a));
    const archived = packed !== undefined ? `${packed} (an archive of ${archives.get(packed) ?? "credentials"})` : undefined;
    const file = own ?? fed ?? inlineCredential() ?? archived;
    if (file === undefined) continue;
    return { file, dest, how: cmd.program };
  }
  if (/\/dev\/tcp\//.test(text)) {
    const file = namedCredential(dropUsedKeys("", text));
    if (file) return { file, dest: /\/dev\/tcp\/\S+/.exec(text)?.[0] ?? "/dev/tcp", how: "a /dev/tcp redirection" };
  }
  return undefined;
}

export const credentialExfiltration = defineDetection({
  id: "credential-exfiltration",
  title: "Credential file sent off the host",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "high",
  attack: ["T1048", "T1552"],
  maturity: "test",
  category: "exfiltration",
  false_positives:
    "Keys used rather than sent (scp -i, curl --key, kubectl --kubeconfig) and public keys (.pub) never match; an admin deliberately copying a kubeconfig or registry config to another host with scp still does.",
  advice: {
    triage: ["On {hosts}, note the destination (URL, host, bucket) and which credential went there; check egress logs for the transfer."],
    containment: ["Revoke the shipped credential now (password, SSH key, cloud access key, registry token, kubeconfig certificate) and block the destination."],
    investigation: ["Search cloud audit logs (CloudTrail, GCP/Azure activity) and SSH logs for use of the stolen credential from other addresses."],
    remediation: ["Rotate every credential on {hosts} the same user could read, and find how the intruder got that user's access."],
  },
  evaluate(host) {
    const hits: DetectionHit[] = [];
    const sources = commandSources(host, userMaps(host));
    const archives = credentialArchives(sources.map((src) => src.text));
    for (const src of sources) {
      const exfil = judge(src.text, archives);
      if (exfil === undefined) continue;
      hits.push(commandHit(src, `${src.who} sends ${exfil.file} to ${clip(exfil.dest, 60)} with ${exfil.how}: ${clip(src.text)}.`));
    }
    return hits;
  },
});
