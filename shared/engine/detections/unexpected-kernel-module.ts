// Loaded kernel modules that are known rootkits, or neither in-tree (Debian's kernels, the Linux source) nor a packaged
// DKMS/vendor module.
import { isPackagedKernelModule, tagBaseline } from "../baselines/index.js";
import { livePatchModule } from "../baselines/live-patches.js";
import { knownRootkitModule } from "../intel/rootkits.js";
import { rowsOf, str, tagList } from "../rows.js";
import type { HostData } from "../types.js";
import { moduleTraces } from "./kernel-module-traces.js";
import { limeLoader } from "./patterns.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";

export const DKMS_PACKAGE_BASELINE = "kmod:dkms-package";

/**
 * DKMS packages whose module is not named for the package (each from the package's dkms.conf):
 * lime-forensics-dkms builds lime (LiME's dkms.conf, BUILT_MODULE_NAME=lime); rtpengine's kernel package builds
 * xt_RTPENGINE (rtpengine's debian/ngcp-rtpengine-kernel-dkms and el/rtpengine.spec); Debian's nat-rtsp-dkms,
 * broadcom-sta-dkms (wl), jool-dkms, openrazer-driver-dkms and xtables-addons-dkms (its extensions' xt_ modules).
 */
const DKMS_BUILDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["lime-forensics-dkms", ["lime"]],
  ["rtpengine-kernel-dkms", ["xt_RTPENGINE"]],
  ["ngcp-rtpengine-kernel-dkms", ["xt_RTPENGINE"]],
  ["nat-rtsp-dkms", ["nf_nat_rtsp", "nf_conntrack_rtsp"]],
  ["broadcom-sta-dkms", ["wl"]],
  ["jool-dkms", ["jool", "jool_siit"]],
  ["openrazer-driver-dkms", ["razerkbd", "razermouse", "razeraccessory", "razerkraken"]],
  // ntop's PF_RING (packages.ntop.org: pfring-dkms builds pf_ring.ko); Cisco Exablaze's exanic-software RPM, whose
  // dkms.conf builds the exanic NIC driver and its exasock socket acceleration.
  ["pfring-dkms", ["pf_ring"]],
  ["exanic", ["exanic", "exasock"]],
  ["xtables-addons-dkms", ["xt_ACCOUNT", "xt_CHAOS", "xt_DELUDE", "xt_DHCPMAC", "xt_DNETMAP", "xt_ECHO", "xt_IPMARK", "xt_LOGMARK", "xt_PROTO", "xt_SYSRQ", "xt_TARPIT", "xt_asn", "xt_condition", "xt_fuzzy", "xt_geoip", "xt_iface", "xt_ipp2p", "xt_ipv4options", "xt_length2", "xt_lscan", "xt_pknock", "xt_psd", "xt_quota2", "compat_xtables"]],
]);

/**
 * The installed package that builds this module for the running kernel: one named for it as DKMS and kmod packaging
 * name them (`<module>-dkms`, RPM's `kmod-<module>` and `akmod-<module>`; module names write `-` as `_`), or one whose
 * dkms.conf is known to build it (DKMS_BUILDS). A name that only starts like a package's is not enough: any rootkit
 * could be called after an installed package.
 */
function buildingPackage(host: HostData, module: string): string | undefined {
  const name = module.toLowerCase().replace(/_/g, "-");
  if (name.length < 3) return undefined;
  const builds = (pkg: string): boolean =>
    pkg === `${name}-dkms` || pkg === `kmod-${name}` || pkg === `akmod-${name}` || (DKMS_BUILDS.get(pkg) ?? []).includes(module);
  for (const table of ["deb_packages", "rpm_packages"]) {
    const row = rowsOf(host, table).find((r) => builds(str(r, "name").toLowerCase()));
    if (row) return `${str(row, "name")} ${str(row, "version")}`.trim();
  }
  return undefined;
}

/**
 * The loaded module a module file's name stands for: the same name (a file may write "-" where the module has "_"),
 * or, for a file insmod was given (`fromLoad`), the name with a kernel version after it, as per-kernel builds are named
 * (lime-5.15.0-126-generic.ko is lime). A file merely lying somewhere proves no more than its exact name.
 */
function loadedAs(file: string, listed: ReadonlySet<string>, fromLoad: boolean): string | undefined {
  const n = file.replace(/-/g, "_");
  if (listed.has(file)) return file;
  if (listed.has(n)) return n;
  if (!fromLoad) return undefined;
  return [...listed].find((m) => m.length >= 3 && n.startsWith(m) && /^_\d+\.\d+/.test(n.slice(m.length)));
}

export const unexpectedKernelModule = defineDetection({
  id: "unexpected-kernel-module",
  title: "Unexpected kernel module",
  reads: {
    kernel_modules: ["name", "status", "used_by"],
    shell_history: ["uid", "command", "history_file"],
    file: ["path", "mode", "size", "mtime"],
    processes: ["pid", "path", "cmdline", "uid"],
    deb_packages: ["name", "version"],
    rpm_packages: ["name", "version"],
  },
  severity: "medium",
  attack: ["T1547.006", "T1014"],
  maturity: "experimental",
  category: "persistence",
  false_positives: "Vendor drivers not in the baselines (in-tree names, DKMS and vendor modules are kept quiet); add them to allowed_kmods.",
  advice: {
    triage: ["Run modinfo on the module on {hosts}: signer, file path, package owner."],
    containment: ["For a known rootkit, isolate {hosts}: the kernel can no longer be trusted."],
    investigation: ["Compare the module list against hosts of the same role; look for hidden files and processes."],
    remediation: ["Reimage hosts with a rootkit module; add legitimate drivers to the allowed_kmods tag."],
  },
  baseline_tag: "allowed_kmods",
  evaluate(host) {
    const allowed = new Set(tagList(host.tags, "allowed_kmods").map((n) => n.replace(/-/g, "_")));
    const hits: DetectionHit[] = [];
    // In-tree modules are the bulk of any host's list: one note for all of them, not one per module.
    const inTree: { rows: EvidenceRow[]; source: string } = { rows: [], source: "" };
    // LiME loaded as its documentation says, by a live insmod of kmod's as root (history anyone may write is not enough).
    const limeLoaded = rowsOf(host, "processes").some(limeLoader);
    const packages = new Set(["deb_packages", "rpm_packages"].flatMap((t) => rowsOf(host, t).map((r) => str(r, "name"))));
    const running = rowsOf(host, "processes").map((p) => ({ path: str(p, "path"), cmdline: str(p, "cmdline") }));
    for (const row of rowsOf(host, "kernel_modules")) {
      const name = str(row, "name");
      if (name === "") continue;
      const evidence = [{ table: "kernel_modules", row }];
      const rootkit = knownRootkitModule(name);
      if (rootkit) {
        hits.push({
          summary: `Kernel module ${name} is loaded: the name of the ${rootkit.family} (${rootkit.source}).`,
          evidence,
          severity: "high",
          entity: `kmod:${name}`,
          known_bad: true,
        });
        continue;
      }
      const entity = `kmod:${name}`;
      if (allowed.has(name.replace(/-/g, "_"))) {
        hits.push({ summary: `Kernel module ${name} is listed in the host's allowed_kmods tag.`, evidence, entity, kept_by: tagBaseline("allowed_kmods") });
        continue;
      }
      const packaged = isPackagedKernelModule(name);
      if (packaged?.baseline === "kmod:debian-in-tree") {
        inTree.rows.push(...evidence);
        inTree.source = packaged.source;
        continue;
      }
      if (packaged) {
        const what = packaged.baseline === "kmod:mainline-in-tree" ? "an in-tree Linux driver that other distributions' kernels build as a module" : "a packaged module";
        hits.push({ summary: `Kernel module ${name} is ${what} (${packaged.source}).`, evidence, entity, kept_by: packaged.baseline });
        continue;
      }
      const patch = livePatchModule(name, packages, running);
      if (patch !== undefined) {
        hits.push({ summary: `Kernel module ${name} is a module ${patch.tool} generates, and ${patch.tool} is installed here (${patch.source.name}).`, evidence, entity, kept_by: patch.id });
        continue;
      }
      // A module an installed DKMS or kmod package builds (LiME on a forensics workstation from lime-forensics-dkms).
      const pkg = buildingPackage(host, name);
      if (pkg !== undefined) {
        hits.push({ summary: `Kernel module ${name} is built for this kernel by the installed ${pkg} package.`, evidence, entity, kept_by: DKMS_PACKAGE_BASELINE });
        continue;
      }
      if (name === "lime" && limeLoaded) {
        hits.push({ summary: "Kernel module lime is loaded: LiME, the memory acquisition module, run as its documentation says (an incident responder's capture, or someone reading this host's memory: ask who).", evidence, entity, severity: "info" });
        continue;
      }
      const usedBy = str(row, "used_by");
      hits.push({
        summary: `Kernel module ${name} (${str(row, "status") || "status unknown"}${usedBy !== "" && usedBy !== "-" ? `, used by ${usedBy}` : ""}) is neither an in-tree Linux module (the module lists of the Linux source and of Debian's kernels) nor a known DKMS or vendor module.`,
        evidence,
        entity,
        // Loaded on most hosts of the fleet: a driver of its distribution or hardware that the baselines lack (an
        // Ubuntu kernel's input_leds). A rootkit's traces below are never kept quiet so.
        fleet_key: name,
      });
    }
    // Modules that hide from /proc/modules still leave an insmod line, a .ko file or a kit's userland behind.
    const listed = new Set(rowsOf(host, "kernel_modules").map((r) => str(r, "name")));
    for (const t of moduleTraces(host)) {
      const loaded = loadedAs(t.name, listed, t.evidence.some((e) => e.table !== "file"));
      if (loaded !== undefined && t.rootkit !== undefined) continue;
      const lime = loaded === "lime" && limeLoaded;
      hits.push({
        summary: lime
          ? `Kernel module lime: ${t.why}; LiME, the memory acquisition module, is loaded and writing this host's memory out (an incident responder's capture, or someone reading its secrets: ask who).`
          : `Kernel module ${t.name}: ${t.why}${t.rootkit ? `; the name of the ${t.rootkit.family} (${t.rootkit.source})` : ""}${loaded !== undefined ? "" : "; it is not in the loaded module list (hidden, or unloaded since)"}.`,
        evidence: t.evidence,
        entity: `kmod:${t.name}`,
        ...(lime ? { severity: "info" as const } : t.strong ? { severity: "high" as const } : {}),
      });
    }
    if (inTree.rows.length > 0) {
      hits.push({
        summary: `${inTree.rows.length} loaded kernel module${inTree.rows.length === 1 ? " is" : "s are"} in Debian's kernel tree (${inTree.source}).`,
        evidence: inTree.rows,
        entity: "kmod:in-tree",
        kept_by: "kmod:debian-in-tree",
      });
    }
    return hits;
  },
});
