// Words and phrases that route a question: detection keywords, category words, pathfinder words.
import type { Category } from "./detections/detection.js";

export interface CategoryEntry {
  phrases: readonly string[];
  categories: readonly Category[];
}

/** Broad words that pull in every detection of one or more categories. */
export const CATEGORY_LEXICON: readonly CategoryEntry[] = [
  { phrases: ["persistence", "persist", "persistent", "backdoor", "backdoors", "autostart", "foothold"], categories: ["persistence"] },
  { phrases: ["privilege escalation", "privesc", "escalate", "root access"], categories: ["privilege-escalation"] },
  { phrases: ["evasion", "hiding", "hidden", "rootkit", "rootkits", "anti forensics", "stealth"], categories: ["defense-evasion"] },
  { phrases: ["command and control", "c2", "beacon", "beaconing", "callback", "implant"], categories: ["command-and-control"] },
  { phrases: ["exfiltration", "exfil", "egress", "data theft"], categories: ["exfiltration"] },
  { phrases: ["vulnerable", "vulnerability", "vulnerabilities", "unpatched", "cve", "advisory"], categories: ["vulnerability"] },
  { phrases: ["compromised", "compromise", "breach", "breached", "hacked", "intrusion"], categories: ["command-and-control", "persistence", "impact", "indicator"] },
];

/** Words that ask for the graph walk (who talks to whom, how far it spread). */
export const PATHFINDER_PHRASES: readonly string[] = [
  "lateral", "lateral movement", "spread", "spreading", "spread to", "pivot", "pivoting", "connected to", "connect to",
  "connects to", "talking to", "talked to", "communicating with", "blast radius", "reach", "reached", "path", "paths", "related",
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const CACHE = new Map<string, RegExp>();

/** Case-insensitive phrase match on word boundaries; spaces, '-' and '_' are interchangeable; plural -s/-es allowed. */
export function phraseRegex(phrase: string): RegExp {
  const cached = CACHE.get(phrase);
  if (cached) return cached;
  const body = phrase
    .trim()
    .split(/[\s_-]+/)
    .map(escape)
    .join("[\\s_-]+");
  const start = /^\w/.test(phrase) ? "\\b" : "(?:^|(?<=[\\s\"'`(]))";
  const end = /\w$/.test(phrase) ? "(?:s|es)?\\b" : "";
  const re = new RegExp(`${start}${body}${end}`, "i");
  CACHE.set(phrase, re);
  return re;
}

export function matchesPhrase(text: string, phrase: string): boolean {
  return phraseRegex(phrase).test(text);
}
