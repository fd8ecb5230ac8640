// Benign knowledge as queries: each returns the baseline id and its source when the baseline explains the artifact,
// undefined otherwise. Detections put the id in `kept_by`.
import { ACCOUNT_GROUPS, CLOUD_SUDO_RULES, type AccountGroup, type SudoHost } from "./accounts.js";
export { isRaspberryPi, type SudoHost } from "./accounts.js";
import { ADMIN_PORT_DAEMONS, BACKUP_CRON, CLOUD_INIT_ROOT_KEY, CONFIG_MANAGEMENT_KEY, CONFIG_MANAGEMENT_SSH, DATA_TRANSFER_SSH, FLEXVOLUME_DRIVER, HEARTBEAT_PING, PACKAGED_CRON, PACKAGED_UNIT_DIRS, TEMP_EXECUTION, VENDOR_INSTALLERS } from "./automation.js";
import { PRIVILEGED_IMAGES, imageRepository, kubeletContainerName } from "./containers.js";
import { DEBIAN_PAM_MODULES, DEBIAN_PAM_SOURCE, OTHER_DISTRO_PAM_MODULES, OTHER_DISTRO_PAM_SOURCE } from "./pam-modules.js";
import { DEBIAN_6_12_ADDED_MODULES, DEBIAN_6_12_SOURCE, DEBIAN_6_1_BUILTIN_MODULES, DEBIAN_6_1_BUILTIN_SOURCE, DEBIAN_6_1_MODULES, DEBIAN_6_1_SOURCE } from "./kernel-modules-in-tree.js";
import { DEBIAN_6_12_ARM64_ADDED_MODULES, DEBIAN_6_12_ARM64_SOURCE, DEBIAN_6_1_ARM64_BUILTIN_MODULES, DEBIAN_6_1_ARM64_BUILTIN_SOURCE, DEBIAN_6_1_ARM64_MODULES, DEBIAN_6_1_ARM64_SOURCE } from "./kernel-modules-in-tree-arm64.js";
import { DEBIAN_5_10_BUILTIN_MODULES, DEBIAN_5_10_BUILTIN_SOURCE, DEBIAN_5_10_MODULES, DEBIAN_5_10_SOURCE } from "./kernel-modules-in-tree-5.10.js";
import { VENDOR_MODULES } from "./kernel-modules-vendor.js";
import { LIVE_PATCH_TOOLS } from "./live-patches.js";
import { MAINLINE_6_1_MODULES, MAINLINE_6_1_SOURCE } from "./kernel-modules-mainline.js";
import { PRELOAD_LIBRARIES, explainedPreload } from "./preload.js";
import { PACKAGED_SUID, canonicalBinPath, tripletFree } from "./suid.js";
import { describeSource, explain, type Explanation } from "./types.js";
import { PORT_OWNERS } from "./ports.js";

export type { Explanation, SourceRef } from "./types.js";
export { commName, describeSource } from "./types.js";
export { defaultProgramsFor, expectedListener, type ListenerQuery } from "./listeners.js";

// Kernel modules.
/**
 * Mainline modules Debian builds into the kernel (=y, so no .ko in its package) that Ubuntu's and RHEL's generic
 * kernels build as loadable modules (=m): they show in lsmod there.
 */
const MAINLINE_BUILT_IN_ON_DEBIAN: ReadonlySet<string> = new Set(["polyval_clmulni", "polyval_generic", "sch_fq_codel", "sch_fq", "efivarfs", "nls_iso8859_1", "autofs4", "crc32c_intel", "ghash_clmulni_intel", "aesni_intel", "sha256_ssse3", "sha1_ssse3"]);
const MAINLINE_SOURCE = { kind: "doc" as const, name: "Linux kernel source tree (mainline)", detail: "tristate options built =y by Debian's config and =m by Ubuntu's and RHEL's generic kernels (arch/x86/crypto, net/sched, fs)" };
const nameSet = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter((n) => n !== ""));

/**
 * The kernel module name lists as sets, built the first time a module name is looked up: some 15,000 names, about a
 * megabyte of strings in each isolate (the runner's main thread and each engine thread), which a run whose question
 * reads no kernel modules never needs (`make bench-fleet`: the runner's peak over 10,000 hosts).
 */
let kmodSets:
  | { inTree61: ReadonlySet<string>; inTree612: ReadonlySet<string>; builtIn61: ReadonlySet<string>; arm6461: ReadonlySet<string>; arm64612: ReadonlySet<string>; arm64BuiltIn61: ReadonlySet<string>; inTree510: ReadonlySet<string>; builtIn510: ReadonlySet<string>; mainline61: ReadonlySet<string> }
  | undefined;
function kmods(): NonNullable<typeof kmodSets> {
  kmodSets ??= {
    inTree61: nameSet(DEBIAN_6_1_MODULES),
    inTree612: nameSet(DEBIAN_6_12_ADDED_MODULES),
    builtIn61: nameSet(DEBIAN_6_1_BUILTIN_MODULES),
    arm6461: nameSet(DEBIAN_6_1_ARM64_MODULES),
    arm64612: nameSet(DEBIAN_6_12_ARM64_ADDED_MODULES),
    arm64BuiltIn61: nameSet(DEBIAN_6_1_ARM64_BUILTIN_MODULES),
    inTree510: nameSet(DEBIAN_5_10_MODULES),
    builtIn510: nameSet(DEBIAN_5_10_BUILTIN_MODULES),
    mainline61: nameSet(MAINLINE_6_1_MODULES),
  };
  return kmodSets;
}

function kmodName(name: string): string {
  return name.trim().replace(/-/g, "_");
}

/** An in-tree module of Debian's kernel or of the Linux source, or a packaged DKMS / vendor module. */
export function isPackagedKernelModule(name: string): Explanation | undefined {
  const n = kmodName(name);
  if (n === "") return undefined;
  const k = kmods();
  if (k.inTree61.has(n)) return explain("kmod:debian-in-tree", DEBIAN_6_1_SOURCE);
  if (k.inTree612.has(n)) return explain("kmod:debian-in-tree", DEBIAN_6_12_SOURCE);
  if (k.arm6461.has(n)) return explain("kmod:debian-in-tree", DEBIAN_6_1_ARM64_SOURCE);
  if (k.arm64612.has(n)) return explain("kmod:debian-in-tree", DEBIAN_6_12_ARM64_SOURCE);
  if (k.inTree510.has(n)) return explain("kmod:debian-in-tree", DEBIAN_5_10_SOURCE);
  if (k.builtIn61.has(n)) return explain("kmod:mainline-modular-elsewhere", DEBIAN_6_1_BUILTIN_SOURCE);
  if (k.arm64BuiltIn61.has(n)) return explain("kmod:mainline-modular-elsewhere", DEBIAN_6_1_ARM64_BUILTIN_SOURCE);
  if (k.builtIn510.has(n)) return explain("kmod:mainline-modular-elsewhere", DEBIAN_5_10_BUILTIN_SOURCE);
  if (MAINLINE_BUILT_IN_ON_DEBIAN.has(n)) return explain("kmod:mainline-modular-elsewhere", MAINLINE_SOURCE);
  for (const group of VENDOR_MODULES) {
    if (group.names.includes(n) || (group.prefixes ?? []).some((p) => n.startsWith(p))) return explain(group.id, group.source);
  }
  // Another distribution's build of an in-tree driver (Ubuntu's pata_acpi, Alpine's simpledrm).
  if (k.mainline61.has(n)) return explain("kmod:mainline-in-tree", MAINLINE_6_1_SOURCE);
  return undefined;
}

// SUID / SGID.
const SUID_BY_PATH: ReadonlyMap<string, (typeof PACKAGED_SUID)[number]> = new Map(PACKAGED_SUID.map((s) => [tripletFree(canonicalBinPath(s.path)), s]));

/** The package that installs this path SUID/SGID, when one does. */
export function packagedSuid(path: string, group?: string, owner?: string): (Explanation & { package: string }) | undefined {
  const entry = SUID_BY_PATH.get(tripletFree(canonicalBinPath(path)));
  if (entry?.group !== undefined && entry.group !== group) return undefined;
  // The package's owner (root unless the entry says otherwise), when the row shows one.
  // A `file` row gives a uid (`uid 1`): only root's is known by number here.
  const numeric = owner?.startsWith("uid ") === true;
  if (entry !== undefined && owner !== undefined && owner !== "" && !(numeric && entry.owner !== undefined) && owner !== (entry.owner ?? "root")) return undefined;
  return entry ? { ...explain(`suid:${entry.package.split(" ")[0]}`, entry.source), package: entry.package } : undefined;
}

// Accounts.
const ACCOUNT_BY_NAME: ReadonlyMap<string, AccountGroup> = new Map(ACCOUNT_GROUPS.flatMap((g) => g.names.map((n) => [n, g] as const)));

/** A package-created system account, or a cloud image's default user. With `shell`, the shell must be the packaged one. */
export function systemAccount(name: string, shell?: string): (Explanation & { interactive: boolean }) | undefined {
  const group = ACCOUNT_BY_NAME.get(name);
  if (group === undefined) return undefined;
  if (shell !== undefined && !group.shells.includes(shell)) return undefined;
  return { ...explain(group.id, group.source), interactive: group.interactive === true };
}

/** A cloud image's default user (ubuntu, admin, ec2-user...). */
export function cloudDefaultUser(name: string): Explanation | undefined {
  const group = ACCOUNT_BY_NAME.get(name);
  return group?.interactive === true ? explain(group.id, group.source) : undefined;
}

/** A passwordless sudo rule a cloud agent writes: cloud-init's default-user rule, GCE's google-sudoers group. */
export function cloudSudoRule(source: string, who: string, rule: string, machine: SudoHost = { raspberryPi: false }): Explanation | undefined {
  const compact = rule.replace(/\s+/g, "");
  const hit = CLOUD_SUDO_RULES.find(
    (r) => r.file === source && (r.on !== "raspberry-pi" || machine.raspberryPi) && (r.who === "cloud-default-user" ? cloudDefaultUser(who) !== undefined : r.who === "first-user" ? who === machine.firstUser : r.who === who) && r.rule.replace(/\s+/g, "") === compact,
  );
  return hit ? explain(hit.id, hit.source) : undefined;
}

// Automation.
function squash(s: string): string {
  return s.trim().replace(/\s+/g, " ");
}

export type AutomationQuery =
  | { kind: "cron"; path: string; command: string }
  | { kind: "ssh-key-options"; options: string }
  | { kind: "ssh-key-comment"; comment: string }
  | { kind: "ssh-client"; cmdline: string }
  | { kind: "admin-port-daemon"; path: string; port: number; cmdline?: string };

/** Standard automation: packaged or backup cron jobs, heartbeat pings, cloud-init root keys, config-management SSH. */
export function knownAutomation(q: AutomationQuery): Explanation | undefined {
  switch (q.kind) {
    case "cron": {
      const command = squash(q.command);
      const packaged = PACKAGED_CRON.find((j) => j.path === q.path && squash(j.command) === command);
      if (packaged) return explain(`cron:packaged:${packaged.package.split(" ")[0]}`, packaged.source);
      // User crontabs have no user field; system crontabs (/etc/crontab, /etc/cron.d) start with the user.
      const bare = q.path.startsWith("/etc/") ? command.replace(/^\S+\s+/, "") : command;
      const backup = BACKUP_CRON.find((p) => p.re.test(bare));
      if (backup) return explain(backup.id, backup.source);
      return undefined;
    }
    case "ssh-key-options":
      return CLOUD_INIT_ROOT_KEY.options.test(q.options) ? explain(CLOUD_INIT_ROOT_KEY.id, CLOUD_INIT_ROOT_KEY.source) : undefined;
    case "ssh-key-comment":
      return CONFIG_MANAGEMENT_KEY.comment.test(q.comment.trim()) ? explain(CONFIG_MANAGEMENT_KEY.id, CONFIG_MANAGEMENT_KEY.source) : undefined;
    case "ssh-client": {
      const hit = CONFIG_MANAGEMENT_SSH.find((p) => p.re.test(q.cmdline)) ?? DATA_TRANSFER_SSH.find((p) => p.re.test(q.cmdline));
      return hit ? explain(hit.id, hit.source) : undefined;
    }
    case "admin-port-daemon": {
      // By the executable's path, not its name (any process may call itself winbindd), and only on its own ports.
      const daemon = ADMIN_PORT_DAEMONS.find(
        (d) =>
          (d.paths.includes(q.path) || (d.runtime !== undefined && d.runtime.java.test(q.path) && d.runtime.runs.test(q.cmdline ?? ""))) &&
          (d.ports === "any" || d.ports.includes(q.port)),
      );
      return daemon ? explain(daemon.id, daemon.source) : undefined;
    }
    default: {
      const unreachable: never = q;
      return unreachable;
    }
  }
}

/** A heartbeat ping (healthchecks.io, Cronitor...) with the rest of the command stripped of it, for re-checking. */
export function heartbeatPing(command: string): { explanation: Explanation; rest: string } | undefined {
  const m = HEARTBEAT_PING.pattern.find(command);
  if (!m) return undefined;
  const rest = `${command.slice(0, m.index)} ${command.slice(m.end)}`.replace(/(?:&&|;|\|\|)\s*(?=$|&&|;|\|\|)/g, "");
  return { explanation: explain(HEARTBEAT_PING.id, HEARTBEAT_PING.source), rest };
}

/** A unit file in a package-owned unit directory (/usr/lib/systemd/system...). */
export function packagedUnitFile(path: string): Explanation | undefined {
  const dir = PACKAGED_UNIT_DIRS.dirs.find((d) => path.startsWith(d));
  return dir ? explain(PACKAGED_UNIT_DIRS.id, PACKAGED_UNIT_DIRS.source) : undefined;
}

/**
 * An LD_PRELOAD value whose every library is a packaged allocator, shim or APM injector in its own directory (a bare
 * name only when the process's LD_LIBRARY_PATH, `libraryPath`, holds system directories alone).
 */
export function knownPreload(value: string, libraryPath = ""): Explanation | undefined {
  const libs = explainedPreload(value, libraryPath);
  const first = libs?.[0];
  if (!libs || !first) return undefined;
  return { baseline: libs.length === 1 ? first.id : libs.map((l) => l.id).join("+"), source: libs.map((l) => describeSource(l.source)).join("; ") };
}

const BUNDLED_ALLOCATOR_SOURCE = {
  kind: "doc" as const,
  name: "Vendor packages that ship an allocator in their own prefix and preload it into their own programs",
  detail: "fluent-package/td-agent (/opt/td-agent/lib/libjemalloc.so, its unit's LD_PRELOAD), GitLab Omnibus (/opt/gitlab/embedded/lib/libjemalloc.so)",
};
const ALLOCATORS = /^lib(?:jemalloc|tcmalloc|tcmalloc_minimal|mimalloc)\.so(?:\.[\d.]+)?$/;

/**
 * An LD_PRELOAD of allocators from the program's own install prefix: every library a jemalloc/tcmalloc/mimalloc in
 * `<prefix>/lib`, `<prefix>/lib64` or `<prefix>/embedded/lib`, where the program itself runs from under `<prefix>` in
 * /opt or /usr/lib (a vendor's bundle), never a temp, home or hidden directory.
 */
export function bundledAllocatorPreload(value: string, programPath: string): Explanation | undefined {
  const libs = value.split(/[\s:]+/).filter((l) => l !== "");
  if (libs.length === 0) return undefined;
  for (const lib of libs) {
    const file = lib.slice(lib.lastIndexOf("/") + 1);
    const prefix = /^(\/(?:opt|usr\/lib)\/[^/.][^/]*)\/(?:embedded\/)?lib(?:64)?\/[^/]+$/.exec(lib)?.[1];
    if (!ALLOCATORS.test(file) || prefix === undefined || !programPath.startsWith(`${prefix}/`) || /\/\./.test(lib)) return undefined;
  }
  return explain("preload:bundled-allocator", BUNDLED_ALLOCATOR_SOURCE);
}

/** An image whose documented way to run is privileged (cAdvisor, docker:dind, Falco...). */
/**
 * A container whose documented way to run is privileged: by its image's repository, or, for a Kubernetes node agent,
 * by the container and namespace names the kubelet gave it (`containerName`: docker_containers.name).
 */
export function privilegedImage(image: string, containerName = "", command = ""): Explanation | undefined {
  const { repository, tag } = imageRepository(image);
  const exactly = (p: (typeof PRIVILEGED_IMAGES)[number]): boolean =>
    p.exact === undefined || (image.trim().toLowerCase().startsWith(p.exact.registry) && p.exact.command.test(command.trim()) && p.exact.names.test(containerName));
  const byImage = PRIVILEGED_IMAGES.find((p) => p.repositories.includes(repository) && (p.tag === undefined || p.tag.test(tag)) && exactly(p));
  if (byImage) return explain(byImage.id, byImage.source);
  const pod = kubeletContainerName(containerName);
  const byPod = pod && PRIVILEGED_IMAGES.find((p) => p.k8s !== undefined && p.k8s.containers.includes(pod.container) && p.k8s.namespaces.includes(pod.namespace));
  return byPod ? explain(byPod.id, byPod.source) : undefined;
}

/** A documented vendor installer fetched with curl | sh (get.docker.com, sh.rustup.rs...). */
export function vendorInstaller(command: string): Explanation | undefined {
  const hit = VENDOR_INSTALLERS.find((p) => p.re.test(command));
  return hit ? explain(hit.id, hit.source) : undefined;
}

/** A program whose documented layout runs it from a temp directory (go run, AppImage, PyInstaller). */
export function tempExecution(path: string, uid?: string): Explanation | undefined {
  const hit = TEMP_EXECUTION.find((p) => p.re.test(path) && (p.uids === undefined || (uid !== undefined && p.uids.includes(uid))));
  return hit ? explain(hit.id, hit.source) : undefined;
}

/**
 * A FlexVolume driver the kubelet runs from its plugin directory under /etc: the exact `<vendor>~<driver>/<driver>`
 * layout, the kubelet (`parentName`) as its parent, and a driver API verb as its first argument.
 */
export function flexVolumeDriver(path: string, cmdline: string, parentName: string, parentPath: string): Explanation | undefined {
  const m = FLEXVOLUME_DRIVER.path.exec(path);
  if (!m || m[1] !== m[2] || !FLEXVOLUME_DRIVER.parents.has(parentName) || !FLEXVOLUME_DRIVER.parentPaths.test(parentPath)) return undefined;
  const verb = cmdline.trim().split(/\s+/)[1] ?? "";
  return FLEXVOLUME_DRIVER.verbs.has(verb) ? explain(FLEXVOLUME_DRIVER.id, FLEXVOLUME_DRIVER.source) : undefined;
}

const PAM_DEBIAN: ReadonlySet<string> = new Set(DEBIAN_PAM_MODULES.split(/\s+/).filter((n) => n !== ""));
const PAM_OTHER: ReadonlySet<string> = new Set(OTHER_DISTRO_PAM_MODULES.split(/\s+/).filter((n) => n !== ""));

/** A PAM module (its file name, `pam_unix.so`) that a distribution ships. */
export function packagedPamModule(fileName: string): Explanation | undefined {
  const name = fileName.replace(/\.so$/, "");
  if (PAM_DEBIAN.has(name)) return explain("pam:packaged", DEBIAN_PAM_SOURCE);
  if (PAM_OTHER.has(name)) return explain("pam:packaged", OTHER_DISTRO_PAM_SOURCE);
  return undefined;
}

/** A host tag as the baseline that kept a row quiet ("tag:allowed_ports"). */
export function tagBaseline(tag: string): string {
  return `tag:${tag}`;
}

/** Every baseline id with its source, for docs and reports. */
export function baselineCatalog(): Array<{ id: string; source: string }> {
  const out: Array<{ id: string; source: string }> = [
    { id: "kmod:debian-in-tree", source: [DEBIAN_6_1_SOURCE, DEBIAN_6_12_SOURCE, DEBIAN_6_1_ARM64_SOURCE, DEBIAN_6_12_ARM64_SOURCE, DEBIAN_5_10_SOURCE].map(describeSource).join("; ") },
    { id: "preload:bundled-allocator", source: describeSource(BUNDLED_ALLOCATOR_SOURCE) },
    { id: "pam:packaged", source: `${describeSource(DEBIAN_PAM_SOURCE)}; ${describeSource(OTHER_DISTRO_PAM_SOURCE)}` },
    { id: "kmod:mainline-modular-elsewhere", source: [DEBIAN_6_1_BUILTIN_SOURCE, DEBIAN_6_1_ARM64_BUILTIN_SOURCE, DEBIAN_5_10_BUILTIN_SOURCE, MAINLINE_SOURCE].map(describeSource).join("; ") },
    ...[...VENDOR_MODULES, ...LIVE_PATCH_TOOLS].map((g) => ({ id: g.id, source: describeSource(g.source) })),
    ...PACKAGED_SUID.map((s) => ({ id: `suid:${s.package.split(" ")[0]}`, source: `${s.path}: ${describeSource(s.source)}` })),
    ...ACCOUNT_GROUPS.map((g) => ({ id: g.id, source: describeSource(g.source) })),
    ...CLOUD_SUDO_RULES.map((r) => ({ id: r.id, source: describeSource(r.source) })),
    ...PORT_OWNERS.map((o) => ({ id: o.id, source: describeSource(o.source) })),
    ...PACKAGED_CRON.map((j) => ({ id: `cron:packaged:${j.package.split(" ")[0]}`, source: describeSource(j.source) })),
    ...BACKUP_CRON.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    { id: HEARTBEAT_PING.id, source: describeSource(HEARTBEAT_PING.source) },
    { id: FLEXVOLUME_DRIVER.id, source: describeSource(FLEXVOLUME_DRIVER.source) },
    { id: CLOUD_INIT_ROOT_KEY.id, source: describeSource(CLOUD_INIT_ROOT_KEY.source) },
    { id: CONFIG_MANAGEMENT_KEY.id, source: describeSource(CONFIG_MANAGEMENT_KEY.source) },
    ...CONFIG_MANAGEMENT_SSH.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    ...DATA_TRANSFER_SSH.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    ...ADMIN_PORT_DAEMONS.map((d) => ({ id: d.id, source: describeSource(d.source) })),
    { id: PACKAGED_UNIT_DIRS.id, source: describeSource(PACKAGED_UNIT_DIRS.source) },
    ...PRELOAD_LIBRARIES.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    ...PRIVILEGED_IMAGES.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    ...VENDOR_INSTALLERS.map((p) => ({ id: p.id, source: describeSource(p.source) })),
    ...TEMP_EXECUTION.map((p) => ({ id: p.id, source: describeSource(p.source) })),
  ];
  const seen = new Set<string>();
  return out.filter((e) => (seen.has(`${e.id}|${e.source}`) ? false : (seen.add(`${e.id}|${e.source}`), true)));
}
