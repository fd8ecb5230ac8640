// Words to comparable stems: tokenising and the Porter (1980) suffix-stripping algorithm, plus the irregular forms
// analysts use ("hidden", "ran", "stolen") mapped to their base word first. "laterally" and "lateral" both become
// "later", "logging in" and "logged in" both "log in", "hiding" and "hide" both "hide".

const IRREGULAR: Readonly<Record<string, string>> = {
  hidden: "hide", hid: "hide", ran: "run", stolen: "steal", stole: "steal", written: "write", wrote: "write",
  sent: "send", made: "make", broken: "break", broke: "break", got: "get", gotten: "get", taken: "take", took: "take",
  came: "come", went: "go", gone: "go", lost: "lose", built: "build", ate: "eat", eaten: "eat", became: "become",
  began: "begin", begun: "begin", dropped: "drop", logged: "log", logins: "login", shown: "show", known: "know",
  children: "child", spawned: "spawn", wiped: "wipe", cleared: "clear", mined: "mine", mining: "mine", miner: "mine",
  miners: "mine", dumped: "dump", dumping: "dump", sshed: "ssh", sshd: "sshd",
};

const VOWEL = /[aeiou]/;

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === undefined) return false;
  if ("aeiou".includes(c)) return false;
  if (c === "y") return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in the stem. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function doubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** consonant-vowel-consonant ending, the last not w, x or y. */
function cvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1] ?? "";
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !"wxy".includes(last);
}

function replaceSuffix(w: string, rules: ReadonlyArray<readonly [string, string]>, minM: number): string {
  for (const [suffix, repl] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      return measure(stem) > minM ? stem + repl : w;
    }
  }
  return w;
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["abli", "able"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"];

function step1(w0: string): string {
  let w = w0;
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("ss")) w = w;
  else if (w.endsWith("s")) w = w.slice(0, -1);

  let again = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    again = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    again = true;
  }
  if (again) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (doubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && cvc(w)) w += "e";
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (measure(stem) <= 1) return w;
    if (suffix === "ion" && !/[st]$/.test(stem)) return w;
    return stem;
  }
  return w;
}

function step5(w0: string): string {
  let w = w0;
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !cvc(stem))) w = stem;
  }
  if (measure(w) > 1 && doubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}

const CACHE = new Map<string, string>();

/** The Porter stem of one lower-case word (words of two letters or fewer, and non-words, are kept). */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  const cached = CACHE.get(lower);
  if (cached !== undefined) return cached;
  let w = IRREGULAR[lower] ?? lower;
  if (w.length > 2 && /^[a-z]+$/.test(w) && VOWEL.test(w)) {
    w = step1(w);
    w = replaceSuffix(w, STEP2, 0);
    w = replaceSuffix(w, STEP3, 0);
    w = step4(w);
    w = step5(w);
  }
  if (CACHE.size < 50_000) CACHE.set(lower, w);
  return w;
}

/**
 * Lower-case word tokens of a text. Apostrophes inside words are dropped ("someone's" -> "someones" -> stem
 * "someon"); hyphens, underscores, slashes and dots split ("log-in" = "log in", "ld.so.preload" = "ld so preload").
 */
export function tokens(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/(\w)['’](\w)/g, "$1$2")
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== "");
}

export function stems(text: string): string[] {
  return tokens(text).map(stem);
}
