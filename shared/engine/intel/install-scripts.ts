// What a package's install script is, and what the install-script attacks of 2025 made theirs do.
//
// npm runs a package's `preinstall`, `install`, `postinstall` and `prepare` scripts with the installing user's rights,
// from the package's own directory, with `npm_lifecycle_event` naming the script (npm docs, "scripts" and
// "Environment"); pip runs a source distribution's setup.py the same way. Payloads seen in the wild:
// - Nx "s1ngularity" (GHSA-cxm3-wv7p-598c, August 2025): `telemetry.js` as postinstall ran the victim's own AI
//   coding CLIs with their permission checks off (`claude --dangerously-skip-permissions`, `gemini --yolo`,
//   `q chat --trust-all-tools`) and a prompt to list wallets, keys and .env files into /tmp/inventory.txt, read
//   `gh auth token`, created a public GitHub repository with the results and appended `sudo shutdown -h 0` to
//   ~/.bashrc and ~/.zshrc.
// - Shai-Hulud (September 2025) and "Sha1-Hulud: The Second Coming" (November 2025): `bundle.js` / `setup_bun.js`
//   ran TruffleHog over the disk, asked the cloud metadata services for credentials, posted to webhook.site,
//   pushed a GitHub Actions workflow and republished the victim's own packages with `npm publish` (a worm).
// Sources: https://github.com/nrwl/nx/security/advisories/GHSA-cxm3-wv7p-598c; StepSecurity, Wiz and Socket
// write-ups of s1ngularity and Shai-Hulud; CISA alert "Widespread Supply Chain Compromise Impacting npm
// Ecosystem" (2025-09-23); https://docs.npmjs.com/cli/using-npm/scripts.

export const INSTALL_SCRIPT_SOURCES: readonly string[] = [
  "https://github.com/nrwl/nx/security/advisories/GHSA-cxm3-wv7p-598c (Nx s1ngularity: AI CLIs run with permission checks off)",
  "https://www.cisa.gov/news-events/alerts/2025/09/23/widespread-supply-chain-compromise-impacting-npm-ecosystem (Shai-Hulud: TruffleHog, metadata credentials, npm publish)",
  "https://docs.npmjs.com/cli/using-npm/scripts (lifecycle scripts, npm_lifecycle_event, the package directory as working directory)",
];

/** npm's lifecycle events that run on install (`npm_lifecycle_event`). `prepare` also runs on a git dependency's install. */
export const INSTALL_LIFECYCLE_EVENTS: ReadonlySet<string> = new Set(["preinstall", "install", "postinstall", "prepare"]);

/**
 * Package managers and the subcommands that install (and so run install scripts); `null`: the bare command installs.
 * Not npx, `npm exec` or `dlx`: what they run is the program the user asked for, not a dependency's script.
 */
export const INSTALLING_COMMANDS: ReadonlyMap<string, ReadonlySet<string | null>> = new Map<string, ReadonlySet<string | null>>([
  ["npm", new Set(["install", "i", "ci", "add", "update", "up", "isntall", "in", "rebuild"])],
  ["yarn", new Set([null, "install", "add", "upgrade"])],
  ["pnpm", new Set(["install", "i", "add", "update", "up", "rebuild"])],
  ["bun", new Set(["install", "i", "add", "update"])],
  ["pip", new Set(["install"])],
  ["pip3", new Set(["install"])],
  ["gem", new Set(["install"])],
]);

export interface AgentCli {
  /** The program's base name. */
  program: string;
  /** Options that turn off the agent's confirmation of file reads, commands and network use. */
  unchecked: RegExp;
  source: string;
}

/** AI coding agents' CLIs with the options that let them act without asking (each tool's own documentation). */
export const AGENT_CLIS: readonly AgentCli[] = [
  { program: "claude", unchecked: /^--dangerously-skip-permissions$|^--permission-mode=?(?:bypassPermissions)?$/, source: "https://docs.anthropic.com/en/docs/claude-code/cli-reference" },
  { program: "gemini", unchecked: /^(?:--yolo|-y|--approval-mode=?(?:yolo)?)$/, source: "https://github.com/google-gemini/gemini-cli (docs/cli/configuration.md: --yolo)" },
  { program: "q", unchecked: /^--trust-all-tools$/, source: "https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/command-line-chat.html (--trust-all-tools)" },
  { program: "codex", unchecked: /^(?:--dangerously-bypass-approvals-and-sandbox|--yolo)$/, source: "https://github.com/openai/codex (docs: --dangerously-bypass-approvals-and-sandbox)" },
];

/** Secret scanners a payload brings to sweep the disk for tokens (Shai-Hulud downloaded and ran TruffleHog). */
export const SECRET_SCANNERS: ReadonlySet<string> = new Set(["trufflehog", "gitleaks", "noseyparker", "detect-secrets", "ggshield"]);

/** Words of a prompt hunting secrets rather than writing code (the s1ngularity prompt named all of these). */
export const SECRET_HUNT_WORDS = /\b(?:wallets?|seed phrases?|mnemonics?|private keys?|keystores?|id_rsa|\.env\b|credentials?|secrets?|api keys?|tokens?|metamask|electrum|ledger|trezor|exodus|phantom|solana|ethereum|bitcoin)\b/i;
/** Of those, the ones only a thief asks for: cryptocurrency wallets and their keys. */
export const WALLET_WORDS = /\b(?:wallets?|seed phrases?|mnemonics?|keystores?|metamask|electrum|ledger|trezor|exodus|phantom)\b/i;
/** A prompt that sweeps the disk: a search verb and a whole tree ($HOME, ~, /home, /etc, /). */
export const DISK_SWEEP = /\b(?:recursively|search|scan|find|inventory|list)\b[^\n]{0,200}?(?:\$HOME\b|~\/|\/home\b|\/etc\b|\/root\b|(?<![\w.])\/(?=\s|$))/i;
