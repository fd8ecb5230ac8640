// Known Linux rootkit kernel-module names (known-bad intelligence: a loaded module with one of these names is a
// `known_bad` match). Names as /proc/modules shows them ('-' becomes '_').

export interface RootkitModule {
  name: string;
  family: string;
  source: string;
}

const GH = (repo: string): string => `public source repository github.com/${repo}`;

export const ROOTKIT_MODULES: readonly RootkitModule[] = [
  { name: "diamorphine", family: "Diamorphine LKM rootkit", source: GH("m0nad/Diamorphine") },
  { name: "reptile", family: "Reptile LKM rootkit", source: GH("f0rb1dd3n/Reptile") },
  { name: "reptile_module", family: "Reptile LKM rootkit", source: GH("f0rb1dd3n/Reptile") },
  { name: "suterusu", family: "Suterusu LKM rootkit", source: GH("mncoppola/suterusu") },
  { name: "adore", family: "Adore LKM rootkit", source: "MITRE ATT&CK T1014; Adore rootkit (Stealth, 1999-2004)" },
  { name: "adore_ng", family: "Adore-ng LKM rootkit", source: "MITRE ATT&CK T1014; chkrootkit's Adore-ng check" },
  { name: "knark", family: "Knark LKM rootkit", source: "chkrootkit's knark check" },
  { name: "kovid", family: "KoviD LKM rootkit", source: GH("carloslack/KoviD") },
  { name: "nuk3gh0st", family: "Nuk3Gh0st LKM rootkit", source: GH("juanschallibaum/Nuk3Gh0st") },
  { name: "vlany", family: "vlany rootkit", source: GH("mempodippy/vlany") },
  { name: "enyelkm", family: "EnyeLKM rootkit", source: "rkhunter's EnyeLKM check" },
  { name: "puszek", family: "Puszek LKM rootkit", source: GH("Eterna1/puszek-rootkit") },
  { name: "singularity", family: "Singularity LKM rootkit", source: GH("MatheuZSecurity/Singularity") },
  { name: "brokepkg", family: "brokepkg LKM rootkit", source: GH("R3tr074/brokepkg") },
  { name: "rootfoo", family: "rootfoo LKM rootkit", source: "public rootkit collections (rkhunter signatures)" },
  { name: "bds_vfs", family: "BDS (Backdoor Shell) kit", source: "rkhunter's BDS check" },
  { name: "modhide", family: "modhide (module hiding helper)", source: "Phrack 61 and rkhunter module checks" },
  { name: "azazel", family: "Azazel (LD_PRELOAD kit shipping a helper module)", source: GH("chokepoint/azazel") },
  { name: "khook", family: "KHOOK hooking framework used by Reptile", source: GH("milabs/khook") },
  { name: "rkduck", family: "rkduck LKM rootkit", source: GH("QuokkaLight/rkduck") },
  { name: "sutekh", family: "Sutekh LKM rootkit", source: GH("PinkP4nther/Sutekh") },
  { name: "lilyofthevalley", family: "Lilyofthevalley LKM rootkit", source: GH("En14c/LilyOfTheValley") },
];

const BY_NAME: ReadonlyMap<string, RootkitModule> = new Map(ROOTKIT_MODULES.map((r) => [r.name, r]));

/** The known rootkit a module name belongs to, or undefined. */
export function knownRootkitModule(name: string): RootkitModule | undefined {
  return BY_NAME.get(name.trim().toLowerCase().replace(/-/g, "_"));
}
