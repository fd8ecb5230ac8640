// Questions as analysts type them: the family's direct and paraphrased pools, open-ended questions,
// and indicator questions built from the scenario's IOCs; wording varied by the scenario's generator.
import type { Rng } from "./prng.js";
import type { CorpusQuestion } from "./types.js";
import type { QuestionPool } from "./kit.js";

const ROLE_PHRASE: Record<string, string[]> = {
  web: ["web tier", "web servers", "frontends", "nginx boxes"], app: ["app servers", "API hosts", "application tier", "backend hosts"],
  db: ["database servers", "DB hosts", "database tier", "postgres/mysql boxes"], cache: ["cache nodes", "redis hosts", "caching tier"],
  broker: ["message brokers", "queue servers", "broker nodes"], k8s: ["k8s nodes", "kubernetes workers", "cluster nodes"],
  "ci-runner": ["CI runners", "build agents", "build machines"], monitoring: ["monitoring boxes", "observability hosts", "metrics servers"],
  bastion: ["bastion", "jump hosts", "SSH gateways"],
};
const ENV_PHRASE: Record<string, string[]> = { prod: ["prod", "production", "the production fleet"], staging: ["staging", "the staging environment"], dev: ["dev", "the dev environment", "development"] };

const PREFIX = ["", "", "", "Quick one: ", "Hey, ", "Can you check: ", "On call here. ", "Question: ", "Security review: ", "Urgent - ", "FYI we got an alert. ", "Before the change freeze: "];
const SUFFIX = ["", "", "", " Thanks!", " thx", " Need this for the incident channel.", " Asking before I escalate.", " Please be thorough.", " Just want a yes/no.", " Last 24h is fine."];

const OPEN = [
  "is anything suspicious going on?", "anything I should worry about on {env}?", "give me a security health check of {host}", "anything weird on the {role} today?",
  "has {host} been compromised?", "should I be worried about {host}?", "run a quick threat hunt across {env}", "any signs of intrusion in {env}?",
  "what looks off on {host}?", "is {env} clean?", "did anything bad happen on the {role} this week?", "can you sanity-check {host} for me?",
  "anything malicious on these hosts?", "is there an active intrusion anywhere?", "look over {host} and tell me if something is wrong", "what's the security posture of the {role} right now?",
  "we had a weird alert from {host}, is it a real problem?", "are we owned?", "anything unusual on the fleet?", "any red flags on {host}?",
  "do a compromise assessment of the {role}", "is {host} safe to keep in rotation?", "anything out of the ordinary in {env} lately?", "what would an incident responder flag on {host}?",
];

const IND_IP = ["have any of our hosts talked to {ioc}?", "is {ioc} connected to anything in {env}?", "threat intel flagged {ioc}, does it show up anywhere?", "any traffic to or from {ioc}?", "search the fleet for {ioc}", "is {ioc} in any process, socket, cron or login record?"];
const IND_PATH = ["is there anything at {ioc} on any host?", "is anything running from {ioc}?", "does {ioc} exist on {host}?", "we saw {ioc} in a report, do we have it?", "find {ioc} across {env}"];
const IND_HASH = ["do we have any file with sha256 {ioc}?", "search all hosts for hash {ioc}", "is sha256:{ioc} present anywhere in {env}?", "VirusTotal flagged {ioc} - is it on our servers?"];
const IND_OTHER = ["any sign of {ioc} in the fleet?", "does \"{ioc}\" appear anywhere on {host}?", "search {env} for {ioc}", "threat report mentions {ioc}, are we affected?"];

export interface QVars {
  host: string;
  role: string;
  env: string;
  tool?: string;
}

function fill(rng: Rng, t: string, v: QVars, ioc = ""): string {
  const text = t
    .replaceAll("{host}", v.host)
    .replaceAll("{role}", rng.pick(ROLE_PHRASE[v.role] ?? [v.role]))
    .replaceAll("{env}", rng.pick(ENV_PHRASE[v.env] ?? [v.env]))
    .replaceAll("{tool}", v.tool ?? "that tool")
    .replaceAll("{ioc}", ioc);
  const prefix = rng.pick(PREFIX);
  const body = prefix && !prefix.endsWith(". ") && !prefix.endsWith("- ") ? text : text.charAt(0).toUpperCase() + text.slice(1);
  return `${prefix}${prefix ? body : rng.chance(0.5) ? text.charAt(0).toUpperCase() + text.slice(1) : text}${rng.pick(SUFFIX)}`;
}

function indicatorTemplate(ioc: string): string[] {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ioc)) return IND_IP;
  if (/^[0-9a-f]{64}$/.test(ioc)) return IND_HASH;
  if (ioc.startsWith("/")) return IND_PATH;
  return IND_OTHER;
}

export function makeQuestions(rng: Rng, kind: "attack" | "benign", pool: QuestionPool, v: QVars, indicators: string[]): CorpusQuestion[] {
  const out: CorpusQuestion[] = [];
  const add = (phrasing: CorpusQuestion["phrasing"], tpl: string, ioc = ""): void => {
    const text = fill(rng, tpl, v, ioc);
    if (!out.some((q) => q.text === text)) out.push({ text, phrasing });
  };
  add("direct", rng.pick(pool.direct));
  const iocs = indicators.filter((i) => !i.startsWith("tool:"));
  if (kind === "attack") {
    add("paraphrase", rng.pick(pool.paraphrase));
    if (iocs.length > 0 && rng.chance(0.8)) {
      const ioc = rng.pick(iocs);
      add("indicator", rng.pick(indicatorTemplate(ioc)), ioc);
    }
    if (out.length < 3 || rng.chance(0.6)) add("open", rng.pick(OPEN));
  } else {
    // A look-alike built around an indicator (an analyst's hunt for it) is asked about by that indicator.
    if (iocs.length > 0) {
      const ioc = rng.pick(iocs);
      add("indicator", rng.pick(indicatorTemplate(ioc)), ioc);
    }
    if (rng.chance(0.6)) add("paraphrase", rng.pick(pool.paraphrase));
    if (rng.chance(0.3)) add("direct", rng.pick(pool.direct));
    add("open", rng.pick(OPEN));
  }
  return out.slice(0, 4);
}
