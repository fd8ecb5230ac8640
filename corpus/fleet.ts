// Fleet-level naming: hostnames, private addresses, admins, public addresses of attackers and of the
// legitimate internet services servers talk to. Everything is drawn from the scenario's generator.
import type { Rng } from "./prng.js";

export const ROLES = ["web", "app", "db", "cache", "broker", "k8s", "ci-runner", "monitoring", "bastion"] as const;
export type Role = (typeof ROLES)[number];

const ROLE_STEMS: Record<Role, string[]> = {
  web: ["web", "www", "nginx", "frontend", "edge"],
  app: ["app", "api", "svc", "backend", "tomcat"],
  db: ["db", "pg", "mysql", "postgres", "sql"],
  cache: ["cache", "redis", "memcache", "kv"],
  broker: ["mq", "kafka", "broker", "rabbit", "events"],
  k8s: ["k8s-node", "worker", "kube-node", "node", "k8s-wk"],
  "ci-runner": ["ci-runner", "runner", "build", "ci", "gitlab-runner"],
  monitoring: ["mon", "prom", "metrics", "grafana", "observability"],
  bastion: ["bastion", "jump", "gw", "ssh-gw", "jumphost"],
};

const SITES = ["euw1", "use1", "fra", "ams", "dub", "sjc", "iad", "lon", "par", "sin"];
const ADMINS = [
  "jmorales", "akhan", "sphillips", "tnguyen", "lwatanabe", "mbecker", "rdiaz", "pkowalski", "nokafor", "ehansen", "gsilva", "cdubois",
  "vpetrov", "hyamamoto", "oadeyemi", "ilindqvist", "fmoreau", "dcohen", "bsingh", "kmurphy", "arossi", "wzhang", "mfischer", "jlarsen",
];

export interface Fleet {
  env: "prod" | "staging" | "dev";
  site: string;
  /** 10.a.b. prefix of the fleet's subnet. */
  prefix: string;
  bastionIp: string;
  admins: string[];
  hostCounter: Map<string, number>;
  usedIps: Set<string>;
  /** Admins' VPN / office egress (public). */
  officeIps: string[];
}

export function makeFleet(rng: Rng): Fleet {
  const env = rng.pick(["prod", "prod", "prod", "staging", "dev"] as const);
  const prefix = `10.${rng.int(0, 60)}.${rng.int(0, 40)}.`;
  return {
    env, site: rng.pick(SITES), prefix, bastionIp: `${prefix}${rng.int(2, 9)}`, admins: rng.sample(ADMINS, rng.int(2, 4)), hostCounter: new Map(), usedIps: new Set(),
    officeIps: [`${rng.pick(["81.2.69", "62.31.114", "94.173.52", "213.86.201", "85.214.132", "77.68.43"])}.${rng.int(2, 250)}`],
  };
}

export function hostname(rng: Rng, fleet: Fleet, role: Role): { name: string; ip: string } {
  const stem = rng.pick(ROLE_STEMS[role]);
  const n = (fleet.hostCounter.get(role) ?? rng.int(0, 11)) + rng.int(1, 3);
  fleet.hostCounter.set(role, n);
  const num = String(n).padStart(2, "0");
  const style = rng.int(0, 3);
  const name = style === 0 ? `${stem}-${num}` : style === 1 ? `${fleet.env}-${stem}-${num}` : style === 2 ? `${stem}${num}.${fleet.site}` : `${stem}-${num}.${fleet.site}.internal`;
  let ip = `${fleet.prefix}${rng.int(10, 250)}`;
  while (fleet.usedIps.has(ip)) ip = `${fleet.prefix}${rng.int(10, 250)}`;
  fleet.usedIps.add(ip);
  return { name, ip };
}

/** Public addresses in ranges that show up in honeypot and threat-intel reports of Linux server attacks. */
const HOSTILE_NETS = [
  "45.9.148", "45.10.88", "185.191.32", "194.38.20", "91.241.19", "141.98.10", "5.188.86", "193.142.146", "217.12.221", "80.94.92",
  "179.43.175", "103.75.201", "146.70.124", "154.213.186", "89.248.165", "195.3.147", "62.204.41", "176.111.174", "38.180.105",
  "209.141.34", "107.189.10", "198.98.56", "43.153.94", "118.193.36", "159.223.91", "167.99.212", "64.227.36", "206.189.140",
];
export function hostileIp(rng: Rng): string {
  return `${rng.pick(HOSTILE_NETS)}.${rng.int(2, 254)}`;
}

export const MINING_POOLS: Array<[string, number]> = [
  ["pool.supportxmr.com", 3333], ["xmr.2miners.com", 2222], ["pool.hashvault.pro", 443], ["gulf.moneroocean.stream", 10128],
  ["xmr-eu1.nanopool.org", 14433], ["pool.minexmr.com", 4444], ["xmr.f2pool.com", 13531], ["monerohash.com", 9999],
];
/** Addresses those pool names resolved to (as seen in reports); a raw IP is what osquery shows. */
export const POOL_NETS = ["51.255.34", "141.94.96", "94.130.12", "95.216.46", "135.125.227", "162.19.139", "51.15.65", "37.187.95"];
export function poolIp(rng: Rng): string {
  return `${rng.pick(POOL_NETS)}.${rng.int(2, 254)}`;
}

/** Legitimate destinations: github.com, registry.npmjs.org (Cloudflare), pypi (Fastly), Ubuntu archive, Docker Hub. */
export const GOOD_DESTS = {
  github: ["140.82.112.3", "140.82.113.4", "140.82.114.3", "140.82.121.4"],
  npm: ["104.16.1.34", "104.16.3.34", "104.16.26.34", "104.16.30.34"],
  pypi: ["151.101.0.223", "151.101.64.223", "151.101.128.223"],
  archive: ["91.189.91.82", "185.125.190.36", "91.189.91.81"],
  dockerhub: ["54.236.113.205", "3.216.34.172", "44.205.64.79"],
  gitlab: ["172.65.251.78"],
};

export function adminKey(rng: Rng): string {
  return `AAAAC3NzaC1lZDI1NTE5AAAAI${rng.base64(43)}`;
}
export function rsaKey(rng: Rng): string {
  return `AAAAB3NzaC1yc2EAAAADAQABAAABgQ${rng.base64(370)}`;
}

export function sha256(rng: Rng): string {
  return rng.hex(64);
}
