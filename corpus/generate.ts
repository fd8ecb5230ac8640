// Entry point: every family's scenarios, built deterministically from a fixed seed, split by a stable hash
// of the id (about 40% holdout within each family), ordered by id.
import { Rng, fnv1a } from "./prng.js";
import { makeFleet } from "./fleet.js";
import { makeCtx, type Family } from "./kit.js";
import { makeQuestions } from "./questions.js";
import type { CorpusHost, Scenario } from "./types.js";
import { MINER_FAMILIES } from "./attacks-miners.js";
import { SHELL_FAMILIES } from "./attacks-shells.js";
import { PERSISTENCE_FAMILIES } from "./attacks-persistence.js";
import { STEALTH_FAMILIES } from "./attacks-stealth.js";
import { EVASION_FAMILIES } from "./attacks-evasion.js";
import { ACCESS_FAMILIES } from "./attacks-access.js";
import { CONTAINER_FAMILIES } from "./attacks-container.js";
import { AUTH_EXFIL_FAMILIES } from "./attacks-auth-exfil.js";
import { SUPPLY_CHAIN_FAMILIES } from "./attacks-supply-chain.js";
import { BENIGN_SERVICE_FAMILIES } from "./benign-services.js";
import { BENIGN_ADMIN_FAMILIES } from "./benign-admin.js";
import { BENIGN_SYSTEM_FAMILIES } from "./benign-system.js";

export const CORPUS_SEED = "inquest-corpus-v1";
/** 2025-01-06T00:00:00Z: collection times fall in the following ~4 months. */
const BASE_NOW = 1_736_121_600;
const HOLDOUT_SHARE = 0.4;

export const FAMILIES: Family[] = [
  ...MINER_FAMILIES, ...SHELL_FAMILIES, ...PERSISTENCE_FAMILIES, ...STEALTH_FAMILIES, ...EVASION_FAMILIES, ...ACCESS_FAMILIES, ...CONTAINER_FAMILIES, ...AUTH_EXFIL_FAMILIES, ...SUPPLY_CHAIN_FAMILIES,
  ...BENIGN_SERVICE_FAMILIES, ...BENIGN_ADMIN_FAMILIES, ...BENIGN_SYSTEM_FAMILIES,
];

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

function rowsContain(host: CorpusHost, needle: string): boolean {
  for (const rows of Object.values(host.tables)) for (const r of rows) for (const v of Object.values(r)) if (String(v).includes(needle)) return true;
  return false;
}

function buildFamily(fam: Family, seed: string, scale: number): Scenario[] {
  const out: Scenario[] = [];
  for (let i = 0; i < fam.count * scale; i++) {
    const rng = new Rng(`${seed}:${fam.name}:${i}`);
    const fleet = makeFleet(rng.fork("fleet"));
    const now = BASE_NOW + rng.int(0, 86_400 * 120);
    const built = fam.build(makeCtx(rng, fleet, now));
    const first = built.hosts[0];
    if (!first) throw new Error(`${fam.name}: no hosts`);
    const primary = first.b.h.spec;
    const id = `${fam.kind === "attack" ? "atk" : "ben"}-${fam.name}-${slug(primary.hostname.split(".")[0] ?? primary.hostname)}-${String(i + 1).padStart(2, "0")}`;
    const tool = built.indicators?.find((x) => x.startsWith("tool:"))?.slice(5);
    const questions = makeQuestions(rng.fork("questions"), fam.kind, fam.q, { host: primary.hostname, role: primary.role, env: fleet.env, tool }, built.indicators ?? []);
    const hosts = rng.shuffle(built.hosts).map(({ b, compromised }) => b.h.build(compromised, `agt-${rng.hex(16)}`));
    for (const h of hosts) for (const a of h.artifacts) if (!rowsContain(h, a)) throw new Error(`${id}: artifact ${a} not in ${h.hostname}'s rows`);
    out.push({ id, family: fam.name, kind: fam.kind, attack: [...fam.attack], sources: [...fam.sources], split: "calibrate", hosts, questions });
  }
  const ranked = [...out].sort((a, b) => fnv1a(a.id) - fnv1a(b.id) || a.id.localeCompare(b.id));
  const nHold = Math.round(out.length * HOLDOUT_SHARE);
  ranked.slice(0, nHold).forEach((s) => (s.split = "holdout"));
  return out;
}

/**
 * The corpus. Another seed (with a scale, a multiple of each family's count) gives a fresh development corpus of the
 * same families with other random variants and phrasings: tune on that or on the calibrate split, never on holdout.
 */
export function generateCorpus(seed: string = CORPUS_SEED, scale = 1): Scenario[] {
  const all = FAMILIES.flatMap((f) => buildFamily(f, seed, scale));
  return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
