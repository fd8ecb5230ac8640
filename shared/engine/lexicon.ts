// Matching analysts' words: a question and a phrase are both cut into word stems; the phrase matches when its stems
// appear in order with at most one filler word between neighbours ("controlling a shell" ~ "control shell"). A phrase
// word ending in `*` is a prefix of the question's word ("exfiltrat*" ~ "exfiltrating"). Filler words (articles,
// possessives) are dropped on both sides first.
import { appendTo } from "./rows.js";
import type { Category } from "./detections/detection.js";
import { stem, tokens } from "./stem.js";

export interface CategoryEntry {
  phrases: readonly string[];
  categories: readonly Category[];
}

/** Broad words that pull in every detection of one or more categories. */
export const CATEGORY_LEXICON: readonly CategoryEntry[] = [
  { phrases: ["persistence", "persist", "persistent", "foothold", "autostart", "survive reboot", "come back", "came back", "keeps coming back", "stay on", "staying on", "way back in", "way back into", "permanent way", "permanent access"], categories: ["persistence"] },
  { phrases: ["privilege escalation", "privesc", "escalate privilege", "escalate to root", "root access", "get root", "become root", "gain root", "elevate privilege", "elevated privilege"], categories: ["privilege-escalation"] },
  { phrases: ["evasion", "evade", "hide", "hidden", "rootkit", "anti forensic", "stealth", "cover track", "under the radar", "avoid detection", "blind"], categories: ["defense-evasion"] },
  { phrases: ["command and control", "c2", "beacon", "callback", "phone home", "call home"], categories: ["command-and-control"] },
  // An implant or a backdoor talks home (or waits to be called) and stays: both kinds of detection answer "is there a
  // backdoor"; intents.ts adds the detections that see a running implant hide (BPFDoor's packet socket is command and
  // control, a per-user RotaJakiro copy in a hidden directory is evasion).
  { phrases: ["implant", "backdoor", "rat", "remote access trojan", "remote access tool"], categories: ["command-and-control", "persistence"] },
  { phrases: ["exfiltrat*", "exfil", "data theft"], categories: ["exfiltration"] },
  { phrases: ["credential theft", "credential access", "steal credential", "stolen credential", "dump password", "harvest credential", "credentials stolen"], categories: ["credential-access"] },
  { phrases: ["container escape", "escape the container", "break out", "breakout"], categories: ["privilege-escalation"] },
];

/** Words that never carry meaning for routing. */
const FILLER: ReadonlySet<string> = new Set(["a", "an", "the", "my", "our", "your", "their", "his", "her", "its", "some", "any", "this", "that", "these", "those"]);

export interface Words {
  /** Raw lower-case tokens (fillers dropped). */
  raw: string[];
  /** Their stems, index for index. */
  stems: string[];
  /** The same stems as a set: a phrase whose first word is not among them is out at once. */
  stemSet: ReadonlySet<string>;
}

export function words(text: string): Words {
  const raw = tokens(text).filter((t) => !FILLER.has(t));
  const stems = raw.map(stem);
  return { raw, stems, stemSet: new Set(stems) };
}

interface PhraseWord {
  stem: string;
  prefix?: string;
}

const PHRASES = new Map<string, PhraseWord[]>();

function compile(phrase: string): PhraseWord[] {
  const cached = PHRASES.get(phrase);
  if (cached) return cached;
  const out: PhraseWord[] = [];
  for (const part of phrase.split(/\s+/)) {
    const prefix = part.endsWith("*");
    const toks = tokens(prefix ? part.slice(0, -1) : part).filter((t) => !FILLER.has(t));
    toks.forEach((t, i) => out.push(prefix && i === toks.length - 1 ? { stem: stem(t), prefix: t } : { stem: stem(t) }));
  }
  PHRASES.set(phrase, out);
  return out;
}

function wordMatches(w: PhraseWord, raw: string, stemmed: string): boolean {
  return w.prefix !== undefined ? raw.startsWith(w.prefix) : stemmed === w.stem;
}

/** Whether the phrase occurs in the question's words (in order, at most one filler word between neighbours). */
export function phraseIn(q: Words, phrase: string): boolean {
  const p = compile(phrase);
  const first = p[0];
  if (first === undefined) return false;
  // Most phrases of the lexicon are not in a given question: one set lookup rules them out (a prefix word may
  // end any of the question's words, so it is looked for word by word below).
  if (first.prefix === undefined && !q.stemSet.has(first.stem)) return false;
  for (let i = 0; i < q.stems.length; i++) {
    if (!wordMatches(first, q.raw[i] ?? "", q.stems[i] ?? "")) continue;
    let at = i;
    let ok = true;
    for (let k = 1; k < p.length && ok; k++) {
      const w = p[k];
      if (w === undefined) break;
      if (at + 1 < q.stems.length && wordMatches(w, q.raw[at + 1] ?? "", q.stems[at + 1] ?? "")) at += 1;
      else if (at + 2 < q.stems.length && wordMatches(w, q.raw[at + 2] ?? "", q.stems[at + 2] ?? "")) at += 2;
      else ok = false;
    }
    if (ok) return true;
  }
  return false;
}

/** Where each phrase of a list starts: positions by first stem, and the phrases that start with a prefix word. */
interface PhraseIndex {
  byFirstStem: Map<string, number[]>;
  prefixFirst: number[];
}

const INDEXES = new WeakMap<readonly string[], PhraseIndex>();

function indexOf(phrases: readonly string[]): PhraseIndex {
  const known = INDEXES.get(phrases);
  if (known) return known;
  const index: PhraseIndex = { byFirstStem: new Map(), prefixFirst: [] };
  phrases.forEach((phrase, i) => {
    const first = compile(phrase)[0];
    if (first === undefined) return;
    if (first.prefix !== undefined) index.prefixFirst.push(i);
    else appendTo(index.byFirstStem, first.stem, i);
  });
  INDEXES.set(phrases, index);
  return index;
}

/**
 * The phrases of a list that occur in the question, in the list's order. Only the phrases that start with one of
 * the question's stems (or with a prefix word) are tried: the routing lexicon holds over a thousand phrases and a
 * question a dozen words, and every trigger of a cached or auto investigation routes its question.
 */
export function matchedPhrases(q: Words, phrases: readonly string[]): string[] {
  return matchedPositions(q, phrases).map((i) => phrases[i] as string);
}

/** Where in the list the phrases that occur in the question are, in order (matchedPhrases, by position). */
export function matchedPositions(q: Words, phrases: readonly string[]): number[] {
  const index = indexOf(phrases);
  let candidates: number[] | null = index.prefixFirst.length > 0 ? [...index.prefixFirst] : null;
  for (const s of q.stemSet) {
    const starting = index.byFirstStem.get(s);
    if (starting !== undefined) (candidates ??= []).push(...starting);
  }
  if (candidates === null) return []; // the usual case: no phrase of this list starts with any of the question's words
  // A position appears once per list (one first stem per phrase; prefix phrases are not in byFirstStem).
  return candidates.sort((a, b) => a - b).filter((i) => phraseIn(q, phrases[i] as string));
}

/** Convenience for one-off checks on raw text. */
export function matchesPhrase(text: string, phrase: string): boolean {
  return phraseIn(words(text), phrase);
}
