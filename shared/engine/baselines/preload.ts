// Libraries that ordinary hosts put in LD_PRELOAD (allocators, test and logging shims, APM injectors), each only
// from the directory its package installs it in: the same name under /tmp is not explained.
import type { SourceRef } from "./types.js";

export interface PreloadLibrary {
  id: string;
  /** Basename pattern. */
  name: RegExp;
  /** Directories (prefixes) the package installs the library in. */
  dirs: readonly string[];
  source: SourceRef;
}

const SYSTEM_LIB = ["/usr/lib/", "/lib/", "/usr/lib64/", "/lib64/", "/usr/local/lib/"];
const deb = (name: string, version: string, file: string): SourceRef => ({ kind: "debian-package", name, version, release: "bookworm", detail: `ships ${file}` });

export const PRELOAD_LIBRARIES: readonly PreloadLibrary[] = [
  { id: "preload:jemalloc", name: /^libjemalloc\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("libjemalloc2", "5.3.0-1", "libjemalloc.so.2") },
  { id: "preload:tcmalloc", name: /^libtcmalloc(?:_minimal|_and_profiler)?(?:_debug)?\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("libgoogle-perftools4 / libtcmalloc-minimal4", "2.10-1", "libtcmalloc.so.4, libtcmalloc_minimal.so.4") },
  { id: "preload:mimalloc", name: /^libmimalloc\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("libmimalloc2.0", "2.0.9+ds-2", "libmimalloc.so.2.0") },
  { id: "preload:eatmydata", name: /^libeatmydata\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("libeatmydata1", "130-2+b1", "libeatmydata.so.1") },
  { id: "preload:stdbuf", name: /^libstdbuf\.so$/, dirs: ["/usr/libexec/coreutils/", "/usr/lib/coreutils/", "/usr/lib64/coreutils/"], source: deb("coreutils", "9.1-1", "/usr/libexec/coreutils/libstdbuf.so (stdbuf sets LD_PRELOAD)") },
  { id: "preload:faketime", name: /^libfaketime(?:MT)?\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("libfaketime", "0.9.10-2.1", "libfaketime.so.1, libfaketimeMT.so.1") },
  { id: "preload:libsegfault", name: /^libSegFault\.so$/, dirs: SYSTEM_LIB, source: { kind: "debian-package", name: "libc6", version: "2.31-13+deb11u11", release: "bullseye", detail: "libSegFault.so (glibc's crash backtrace helper, loaded with LD_PRELOAD; removed in glibc 2.35)" } },
  { id: "preload:snoopy", name: /^libsnoopy\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: deb("snoopy", "2.5.1-1", "libsnoopy.so (command logger)") },
  { id: "preload:gtk3-nocsd", name: /^libgtk3-nocsd\.so(?:\.\d+)*$/, dirs: SYSTEM_LIB, source: { kind: "debian-package", name: "gtk3-nocsd", version: "3-1", release: "bookworm", detail: "libgtk3-nocsd.so.0 (in libgtk3-nocsd0)" } },
  // Gentoo's Portage runs every build phase under sandbox, which preloads its library to confine writes.
  { id: "preload:gentoo-sandbox", name: /^libsandbox\.so$/, dirs: ["/usr/lib/", "/usr/lib64/", "/lib/", "/lib64/"], source: { kind: "doc", name: "Gentoo sys-apps/sandbox: Portage's FEATURES=sandbox runs ebuild phases under sandbox, which sets LD_PRELOAD=libsandbox.so (installed in /usr/lib64 or /usr/lib)", url: "https://wiki.gentoo.org/wiki/Project:Sandbox" } },
  // Kernel-bypass network stacks are used by preloading their socket library into the application (trading, HPC).
  // From the distribution's library directories only (their packages install there), and never into programs that
  // authenticate: sshd-library-backdoor does not take them (AUTH_EXCLUDED).
  { id: "preload:kernel-bypass", name: /^(?:libonload|libvma|libxlio|libexasock_preload)\.so(?:\.\d+)*$/, dirs: ["/usr/lib/", "/lib/", "/usr/lib64/", "/lib64/"], source: { kind: "doc", name: "AMD Solarflare Onload user guide (the onload wrapper sets LD_PRELOAD=libonload.so); NVIDIA VMA/XLIO (LD_PRELOAD=libvma.so / libxlio.so); Exablaze exasock (libexasock_preload.so)", url: "https://docs.amd.com/r/en-US/ug1586-onload-user/Onload-Deployment" } },
  { id: "preload:dynatrace-oneagent", name: /^liboneagentproc\.so$/, dirs: ["/opt/dynatrace/oneagent/", "/var/lib/dynatrace/oneagent/", "/usr/lib/", "/lib/"], source: { kind: "doc", name: "Dynatrace OneAgent on Linux: process injection via liboneagentproc.so", url: "https://docs.dynatrace.com/docs/setup-and-configuration/dynatrace-oneagent/installation-and-operation/linux" } },
  { id: "preload:datadog-apm-inject", name: /^(?:launcher\.preload\.so|libddinjector\.so)$/, dirs: ["/opt/datadog-packages/", "/opt/datadog/apm/inject/"], source: { kind: "doc", name: "Datadog Single Step APM Instrumentation (host injection through ld.so.preload / LD_PRELOAD)", url: "https://docs.datadoghq.com/tracing/trace_collection/automatic_instrumentation/single-step-apm/" } },
];

/** The agent's cut of an environment value (services/agent/telemetry/proc.ts ENV_VALUE_CAP). */
const ENV_VALUE_LIMIT = 4096;

/** Preloads no authenticating program (sshd, PAM's users) has a reason to load. */
export const AUTH_EXCLUDED: ReadonlySet<string> = new Set(["preload:kernel-bypass"]);

/**
 * Whether ld.so finds a bare library name in the system directories only: LD_LIBRARY_PATH (the same process's) is
 * searched first, so a bare `libjemalloc.so.2` with `LD_LIBRARY_PATH=/dev/shm/.x` loads whatever that directory holds.
 * An empty entry is the working directory.
 */
export function bareNamesResolveToSystem(libraryPath: string): boolean {
  if (libraryPath === "") return true;
  // The agent keeps at most 4096 characters of a value (docs/telemetry.md): a longer one may hide its last entries.
  if (libraryPath.length >= ENV_VALUE_LIMIT) return false;
  return libraryPath.split(/[:;]/).every((dir) => !dir.includes("/../") && SYSTEM_LIB.some((d) => `${dir.replace(/\/+$/, "")}/`.startsWith(d) && !/\/\./.test(dir)));
}

/**
 * Every library of an LD_PRELOAD value is explained (directory and name), or undefined. `libraryPath`: the process's
 * LD_LIBRARY_PATH, which decides where a bare name is found (bareNamesResolveToSystem).
 */
export function explainedPreload(value: string, libraryPath = ""): PreloadLibrary[] | undefined {
  const libs = value.split(/[\s:]+/).filter((s) => s !== "");
  if (libs.length === 0) return undefined;
  const bareIsSystem = bareNamesResolveToSystem(libraryPath);
  const found: PreloadLibrary[] = [];
  for (const lib of libs) {
    const base = lib.split("/").pop() ?? lib;
    // A bare name is looked up in the system library path by ld.so, after the process's LD_LIBRARY_PATH.
    const hit = PRELOAD_LIBRARIES.find((p) => p.name.test(base) && (!lib.includes("/") ? bareIsSystem : p.dirs.some((d) => lib.startsWith(d)) && !lib.includes("/../")));
    if (!hit) return undefined;
    found.push(hit);
  }
  return found;
}
