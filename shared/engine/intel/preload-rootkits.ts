// Userland (LD_PRELOAD) rootkit libraries seen in the wild, by file name. Used by ld-so-preload (known_bad).

export interface PreloadRootkit {
  /** Library file name as installed. */
  name: string;
  family: string;
  source: string;
}

export const PRELOAD_ROOTKITS: readonly PreloadRootkit[] = [
  {
    name: "libprocesshider.so",
    family: "libprocesshider (used by TeamTNT and other miner crews to hide the miner from ps/top)",
    source: "https://github.com/gianlucaborello/libprocesshider (README: copy to /usr/local/lib and add it to /etc/ld.so.preload)",
  },
  {
    name: "libsystem.so",
    family: "Kinsing userland rootkit (/etc/libsystem.so in /etc/ld.so.preload)",
    source: "https://www.trendmicro.com/en_us/research/20/k/analysis-of-kinsing-malware-s-use-of-rootkit.html",
  },
  { name: "jynx2.so", family: "Jynx2 rootkit", source: "https://github.com/chokepoint/jynxkit" },
];

/** Core C-library names: a copy of one of these outside the system library directories is a masquerade. */
export const CORE_LIBRARY_NAME = /^(?:libc|libdl|libpthread|libm|librt|libutil|libselinux|ld-linux(?:-x86-64|-aarch64)?)\.so(?:\.[\d.]+)?$/;

export function preloadRootkit(path: string): PreloadRootkit | undefined {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return PRELOAD_ROOTKITS.find((r) => file === r.name);
}
