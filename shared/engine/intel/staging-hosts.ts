// Anonymous file-sharing, paste and tunnel hosts that intruders stage tools on (no account, no review).

export interface StagingHost {
  host: string;
  source: string;
}

const LOTS = "https://lots-project.com/ (Living Off Trusted Sites)";

export const STAGING_HOSTS: readonly StagingHost[] = [
  { host: "pastebin.com", source: "https://unit42.paloaltonetworks.com/watchdog-cryptojacking/ (payloads on pastebin)" },
  { host: "transfer.sh", source: LOTS },
  { host: "temp.sh", source: LOTS },
  { host: "file.io", source: LOTS },
  { host: "0x0.st", source: LOTS },
  { host: "termbin.com", source: LOTS },
  { host: "paste.ee", source: LOTS },
  { host: "bashupload.com", source: LOTS },
  { host: "oshi.at", source: LOTS },
  { host: "gofile.io", source: LOTS },
  { host: "ngrok.io", source: "https://www.huntress.com/blog/abusing-ngrok (ngrok tunnels as download servers)" },
  { host: "ngrok-free.app", source: "https://www.huntress.com/blog/abusing-ngrok" },
  { host: "trycloudflare.com", source: "https://www.proofpoint.com/us/blog/threat-insight/threat-actors-abuse-cloudflare-tunnels-deliver-rats" },
  { host: "iplogger.org", source: LOTS },
  // Request-capture services: anything posted is kept for whoever holds the URL (build secrets leave this way).
  { host: "webhook.site", source: `${LOTS}; StepSecurity and Wiz write-ups of CI secret exfiltration` },
  { host: "pipedream.net", source: LOTS },
  { host: "requestbin.net", source: LOTS },
  { host: "oast.fun", source: "https://github.com/projectdiscovery/interactsh (default out-of-band servers)" },
  { host: "oast.pro", source: "https://github.com/projectdiscovery/interactsh" },
  { host: "oast.live", source: "https://github.com/projectdiscovery/interactsh" },
  { host: "oast.site", source: "https://github.com/projectdiscovery/interactsh" },
  { host: "oast.online", source: "https://github.com/projectdiscovery/interactsh" },
  { host: "oast.me", source: "https://github.com/projectdiscovery/interactsh" },
  { host: "interact.sh", source: "https://github.com/projectdiscovery/interactsh" },
];

export function stagingHost(host: string): StagingHost | undefined {
  const h = host.toLowerCase();
  return STAGING_HOSTS.find((s) => h === s.host || h.endsWith(`.${s.host}`));
}

/**
 * Free dynamic-DNS zones: anyone can point a name under them at any address in minutes, so a name there says nothing
 * about who runs it (download servers and C2 of commodity malware sit under them). Sources: the providers' own lists of
 * free hostname domains (Duck DNS, No-IP, Dynu, FreeDNS at afraid.org, Dyn).
 */
const DYNAMIC_DNS_ZONES: readonly string[] = [
  "duckdns.org", "ddns.net", "hopto.org", "zapto.org", "sytes.net", "no-ip.org", "no-ip.biz", "no-ip.info", "serveftp.com", "servehttp.com",
  "myftp.org", "redirectme.net", "dynu.net", "mooo.com", "chickenkiller.com", "dyndns.org", "dynalias.com", "ddnsfree.com", "ddns.me",
];

export function dynamicDnsHost(host: string): boolean {
  const h = host.toLowerCase();
  return DYNAMIC_DNS_ZONES.some((z) => h === z || h.endsWith(`.${z}`));
}
