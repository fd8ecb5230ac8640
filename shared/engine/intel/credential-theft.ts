// Known-bad knowledge about credential theft on Linux: purpose-built dumpers and the files intruders read or ship
// off a host. Each entry names its public source.

export interface ToolIntel {
  name: string;
  /** Matches the tool in a process name, path or command line. */
  pattern: Pick<RegExp, "test">;
  /** A purpose-built credential stealer (a match is known-bad), not a dual-use cracker. */
  known_bad: boolean;
  source: string;
}

const CRACKED = /shadow|passwd|hash/i;

/**
 * john run on password files: `john` (alone, or after a path or a separator), then its `--options`, then a word naming
 * shadow, passwd or a hash file; an option naming one counts too (`--wordlist=/etc/shadow`). Word by word, once: as one
 * expression, `(?:--\S+\s+)*\S*` retried every split of a long run of options (quadratic; a ReDoS audit).
 */
function johnCracks(text: string): boolean {
  const words = text.split(/\s+/);
  for (let i = 0; i < words.length - 1; i++) {
    if (!/(?:^|[/;|&])john$/i.test(words[i] ?? "")) continue;
    let j = i + 1;
    for (; j < words.length; j++) {
      const next = words[j] ?? "";
      if (CRACKED.test(next)) return true;
      if (!next.startsWith("--") || next.length < 3) break;
    }
    // The options read are none of them a hit, and a john among them would read the same words again.
    i = j - 1;
  }
  return false;
}

export const CREDENTIAL_TOOLS: readonly ToolIntel[] = [
  { name: "mimipenguin", pattern: /\bmimipenguin\b/i, known_bad: true, source: "https://github.com/huntergregal/mimipenguin (ATT&CK S0179)" },
  { name: "LaZagne", pattern: /\blazagne\b/i, known_bad: true, source: "https://github.com/AlessandroZ/LaZagne (ATT&CK S0349)" },
  { name: "3snake", pattern: /(?:^|[\s/])3snake\b/i, known_bad: true, source: "https://github.com/blendin/3snake (sshd/sudo password sniffer)" },
  { name: "swap_digger", pattern: /\bswap_digger\b/i, known_bad: true, source: "https://github.com/sevagas/swap_digger" },
  { name: "linikatz", pattern: /\blinikatz\b/i, known_bad: true, source: "https://github.com/CiscoCXSecurity/linikatz" },
  { name: "unshadow", pattern: /(?:^|[\s/;|&])unshadow\s/i, known_bad: false, source: "Atomic Red Team T1003.008; John the Ripper (https://www.openwall.com/john/)" },
  { name: "John the Ripper", pattern: { test: johnCracks }, known_bad: false, source: "https://www.openwall.com/john/doc/EXAMPLES.shtml" },
  { name: "hashcat", pattern: /(?:^|[\s/;|&])hashcat\s+-m\s*(?:500|1800|7400|3200)\b/i, known_bad: false, source: "https://hashcat.net/wiki/doku.php?id=example_hashes (crypt/sha512crypt modes)" },
];

export interface CredentialFile {
  label: string;
  /** Matches the path in a command (never the .pub half of a key pair). */
  pattern: RegExp;
  kind: "system" | "ssh" | "cloud" | "developer";
}

/** Credential stores read by Linux stealers (TeamTNT, Kinsing, Shai-Hulud, LaZagne modules) and by ART tests. */
export const CREDENTIAL_FILES: readonly CredentialFile[] = [
  { label: "/etc/shadow", pattern: /\/etc\/g?shadow-?(?![\w.])/, kind: "system" },
  { label: "/etc/security/opasswd", pattern: /\/etc\/security\/opasswd\b/, kind: "system" },
  { label: "SSH private key", pattern: /\.ssh\/(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|identity)(?![\w.-])/, kind: "ssh" },
  { label: "SSH host private key", pattern: /\/etc\/ssh\/ssh_host_\w+_key(?![\w.])/, kind: "ssh" },
  { label: "AWS credentials", pattern: /\.aws\/credentials\b/, kind: "cloud" },
  { label: "gcloud credentials", pattern: /\.config\/gcloud\/(?:credentials\.db|access_tokens\.db|application_default_credentials\.json|legacy_credentials)/, kind: "cloud" },
  { label: "Azure CLI tokens", pattern: /\.azure\/(?:accessTokens\.json|msal_token_cache\.\w+)/, kind: "cloud" },
  { label: "kubeconfig", pattern: /\.kube\/config\b|\/etc\/kubernetes\/admin\.conf\b/, kind: "cloud" },
  { label: "Docker registry credentials", pattern: /\.docker\/config\.json\b/, kind: "developer" },
  { label: "git credentials", pattern: /\.git-credentials\b/, kind: "developer" },
  { label: ".netrc", pattern: /\/\.netrc\b/, kind: "developer" },
  { label: ".pgpass", pattern: /\/\.pgpass\b/, kind: "developer" },
  { label: "s3cmd/s3fs credentials", pattern: /\/\.s3cfg\b|\/\.passwd-s3fs\b|\/\.boto\b/, kind: "cloud" },
  { label: "Vault token", pattern: /\/\.vault-token\b/, kind: "developer" },
];

export const CREDENTIAL_FILE_SOURCES: readonly string[] = [
  "https://attack.mitre.org/techniques/T1552/001/ and T1552/004",
  "https://www.cadosecurity.com/blog/team-tnt-the-first-crypto-mining-worm-to-steal-aws-credentials (.aws/credentials, .docker/config.json)",
  "https://unit42.paloaltonetworks.com/teamtnt-operations-cloud-environments/ (credential file list)",
  "https://github.com/redcanaryco/atomic-red-team/blob/master/atomics/T1552.004/T1552.004.md (find / -name id_rsa, copy private keys)",
  "https://github.com/redcanaryco/atomic-red-team/blob/master/atomics/T1003.008/T1003.008.md (cat /etc/shadow, unshadow)",
];

/** The credential file a command names, if any. */
export function credentialFileIn(text: string): CredentialFile | undefined {
  return CREDENTIAL_FILES.find((f) => f.pattern.test(text));
}
