// Post-exploitation tools intruders bring onto Linux hosts (privilege-escalation enumerators, process snoopers,
// tunnels). Matched against the file name or URL of a download.

export interface OffensiveTool {
  name: string;
  pattern: RegExp;
  source: string;
}

export const OFFENSIVE_TOOLS: readonly OffensiveTool[] = [
  { name: "linPEAS", pattern: /\blinpeas(?:\.sh|_\w+)?\b/i, source: "https://github.com/peass-ng/PEASS-ng/tree/master/linPEAS" },
  { name: "LinEnum", pattern: /\blinenum(?:\.sh)?\b/i, source: "https://github.com/rebootuser/LinEnum" },
  { name: "linux-exploit-suggester", pattern: /\blinux-exploit-suggester|\bles\.sh\b/i, source: "https://github.com/The-Z-Labs/linux-exploit-suggester" },
  { name: "pspy", pattern: /\bpspy(?:32|64)?s?\b/i, source: "https://github.com/DominicBreuker/pspy" },
  { name: "chisel", pattern: /\bchisel(?:_[\d.]+_linux_\w+)?(?:\.gz)?\b/i, source: "https://github.com/jpillora/chisel (ATT&CK S0020 lists tunnelling tools; used by many intrusion sets)" },
  { name: "ligolo-ng", pattern: /\bligolo(?:-ng)?\b|\bligolo_agent\b/i, source: "https://github.com/nicocha30/ligolo-ng" },
  { name: "frp", pattern: /\bfrpc(?:\.ini|\.toml)?\b/i, source: "https://github.com/fatedier/frp (Fast Reverse Proxy, ATT&CK S1144)" },
  { name: "gsocket", pattern: /\bgs-netcat\b|\bgsocket\b|gsocket\.io/i, source: "https://github.com/hackerschoice/gsocket (used by TeamTNT-like miners for backdoor access)" },
  { name: "traitor", pattern: /\btraitor-(?:amd64|386|arm64)\b/i, source: "https://github.com/liamg/traitor" },
  { name: "mimipenguin", pattern: /\bmimipenguin(?:\.sh|\.py)?\b/i, source: "https://github.com/huntergregal/mimipenguin (dumps login passwords from memory; ATT&CK T1003.007)" },
  { name: "LaZagne", pattern: /\blazagne(?:\.py)?\b/i, source: "https://github.com/AlessandroZ/LaZagne (ATT&CK S0349)" },
  { name: "pnscan", pattern: /^pnscan$/i, source: "https://github.com/ptrrkssn/pnscan (the scanner TeamTNT and Kinsing-style worms drop to find exposed Redis and Docker: Cado Security, TeamTNT reports 2021)" },
  { name: "Sliver", pattern: /\bsliver-(?:client|server)(?:_linux)?\b/i, source: "https://github.com/BishopFox/sliver (ATT&CK S0633)" },
];

/** The tool whose file name this is (the base name only: directories named after a tool are not enough). */
export function offensiveToolFile(path: string): OffensiveTool | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return base === "" ? undefined : OFFENSIVE_TOOLS.find((t) => t.pattern.test(base));
}

export function offensiveTool(text: string): OffensiveTool | undefined {
  return OFFENSIVE_TOOLS.find((t) => t.pattern.test(text));
}

/**
 * Tunnels known by their command-line grammar, renamed or not (`/var/tmp/.font-unix/fontd client --keepalive 25s
 * https://x:443 R:0.0.0.0:1080:socks`): chisel's client with a reverse remote or a SOCKS remote, or its server with
 * --reverse; ligolo-ng's agent dialling out with -connect and -ignore-cert or -retry. Sources: the tools' READMEs
 * (chisel "Usage": remotes R:<local>:<remote>, socks; ligolo-ng "Agent" flags).
 */
export function tunnelByArguments(args: readonly string[]): OffensiveTool | undefined {
  const chisel = OFFENSIVE_TOOLS.find((t) => t.name === "chisel");
  const ligolo = OFFENSIVE_TOOLS.find((t) => t.name === "ligolo-ng");
  const rest = args.slice(1);
  if (args[0] === "client" && rest.some((a) => /^R:/.test(a) || /^(?:[\w.]+:)*(?:\d+:)?socks$/.test(a))) return chisel;
  if (args[0] === "server" && rest.includes("--reverse")) return chisel;
  if (args.includes("-connect") && (args.includes("-ignore-cert") || args.includes("-retry"))) return ligolo;
  return undefined;
}
