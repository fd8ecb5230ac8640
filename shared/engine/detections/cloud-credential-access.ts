// Cloud credentials harvested from the instance: the metadata service's credential paths fetched by a shell, curl
// or wget (not by the cloud's own agents), AWS credential files read or swept for, access-key ids grepped for.
// TeamTNT's scripts do all three. Facts: intel/cloud-metadata.ts and intel/credential-theft.ts.
import { basename, str } from "../rows.js";
import type { Severity } from "../types.js";
import { CLOUD_AGENTS } from "../baselines/cloud-agents.js";
import { ACCESS_KEY_HUNT, metadataCredentialPath } from "../intel/cloud-metadata.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, PROCESS_COLUMNS, simpleCommands, USER_COLUMNS, userMaps, type UserMaps } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { InOrder } from "../in-order.js";

const READERS: ReadonlySet<string> = new Set(["cat", "less", "more", "head", "tail", "grep", "egrep", "awk", "sed", "cut", "cp", "base64", "strings", "xxd", "tar", "zip"]);
const CLOUD_FILE = /(\/root|\/home\/[^/\s'"]+|\/home\/\*|~[^/\s'"~]*|\$HOME|\/var\/lib\/[^/\s'"]+)\/\.(?:aws\/credentials|config\/gcloud\/(?:credentials\.db|application_default_credentials\.json|access_tokens\.db)|azure\/(?:accessTokens\.json|msal_token_cache\.\w+)|s3cfg|passwd-s3fs)\b/;
const CLOUD_FILE_SWEEP = new InOrder(/[\n|;]/, [/\bfind\s+\/\S*\s/i, /-(?:i?name|path)\s+['"]?\*?(?:credentials|\.aws|\.s3cfg|application_default_credentials\.json|accessTokens\.json)\b/i]);
/** A GCP token handed straight to a registry login (CI pushing to gcr.io / Artifact Registry). */
const TOKEN_TO_LOGIN = new InOrder(/\n/, [/\|[^|]*?\b(?:docker|podman|helm|crane|skopeo|buildah)\s+(?:registry\s+)?login\b/, /--password-stdin/]);

function agentProcess(name: string, cmdline: string): string | undefined {
  return CLOUD_AGENTS.programs.find((p) => name === p || new RegExp(`(?:^|/)${p.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}(?:\\s|$)`).test(cmdline));
}

interface Finding {
  why: string;
  severity?: Severity;
}

function judgeFiles(text: string, uid: string, users: UserMaps): Finding | undefined {
  if (CLOUD_FILE_SWEEP.test(text)) return { why: "searches the file system for cloud credential files" };
  if (ACCESS_KEY_HUNT.test(text)) return { why: "searches files for AWS access keys" };
  for (const cmd of simpleCommands(text)) {
    if (!READERS.has(cmd.program)) continue;
    const m = CLOUD_FILE.exec(cmd.args.join(" "));
    if (!m) continue;
    const prefix = m[1] ?? "";
    if (prefix === "/home/*") return { why: `reads every user's cloud credentials (${m[0]})` };
    const owner = prefix === "~" || prefix === "$HOME" ? uid : prefix.startsWith("~") ? [...users.names].find(([, n]) => n === prefix.slice(1))?.[0] : users.homes.get(prefix);
    if (owner !== undefined && owner !== uid) return { why: `reads another account's cloud credentials (${m[0]})` };
    // Reading one's own file is what admins do to check a profile: worth a look, not a page.
    return { why: `prints cloud credentials (${m[0]})`, severity: "info" };
  }
  return undefined;
}

export const cloudCredentialAccess = defineDetection({
  id: "cloud-credential-access",
  title: "Cloud credentials taken from the metadata service or credential files",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "high",
  attack: ["T1552.005", "T1552.001"],
  maturity: "test",
  category: "credential-access",
  false_positives:
    "The clouds' own agents (amazon-ssm-agent, google_guest_agent, waagent, cloud-init, the AWS CLI and SDKs) fetch these paths without the path in a command line and are ignored; a CI job piping a GCP token into docker login and a boot script written by the owner still show (info).",
  advice: {
    triage: ["On {hosts}, find the process or session that fetched the credentials and what it did with the output (file, pipe, network)."],
    containment: ["Revoke the role's active sessions (AWS: deny tokens issued before now on the role; GCP/Azure: rotate the service account keys) and enforce IMDSv2 / hop limit 1 on {hosts}."],
    investigation: ["Search CloudTrail / GCP audit / Azure activity logs for the instance role's credentials used from addresses other than {hosts}."],
    remediation: ["Scope the instance role down, block metadata access from containers, and rebuild the host if a payload ran."],
  },
  evaluate(host) {
    const users = userMaps(host);
    const hits: DetectionHit[] = [];
    for (const src of commandSources(host, users)) {
      if (src.table === "processes") {
        const name = basename(str(src.row, "name")).toLowerCase();
        if (agentProcess(name, src.text) !== undefined) continue;
        if (src.parent && agentProcess(basename(str(src.parent, "name")).toLowerCase(), str(src.parent, "cmdline")) !== undefined) continue;
      }
      const meta = metadataCredentialPath(src.text);
      if (meta !== undefined) {
        const bootScript = /\/var\/lib\/cloud\/instances?\//.test(`${src.text} ${str(src.parent, "cmdline")}`);
        const severity: Severity | undefined = TOKEN_TO_LOGIN.test(src.text) || bootScript ? "info" : undefined;
        hits.push(commandHit(src, `${src.who} fetches instance credentials from the ${meta.provider}: ${clip(src.text)}.`, severity ? { severity } : {}));
        continue;
      }
      const file = judgeFiles(src.text, src.uid, users);
      if (file !== undefined) hits.push(commandHit(src, `${src.who} ${file.why}: ${clip(src.text)}.`, file.severity ? { severity: file.severity } : {}));
    }
    return hits;
  },
});
