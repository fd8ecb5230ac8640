// Kernel modules that live-patching and tracing tools build and load under generated names: each known by the shape
// its tool gives the name *and* by the tool on the host (its package or its running program). A name of that shape
// on a host without the tool is anyone's (a rootkit called kpatch_x stays a finding).
import type { SourceRef } from "./types.js";

export interface LivePatchTool {
  id: string;
  tool: string;
  /** The module names the tool generates. */
  module: RegExp;
  /** Packages (deb or rpm) that install the tool. */
  packages: readonly string[];
  /** Programs of the tool (process executables' file names), for installs no package table shows (a snap). */
  programs: readonly string[];
  source: SourceRef;
}

export const LIVE_PATCH_TOOLS: readonly LivePatchTool[] = [
  {
    id: "kmod:ksplice",
    tool: "Oracle Ksplice",
    module: /^ksplice_[a-z0-9]{8}(?:_[a-z0-9_]+)?$/,
    packages: ["uptrack", "ksplice", "ksplice-tools", "uptrack-offline"],
    programs: ["uptrack-upgrade", "ksplice"],
    source: { kind: "doc", name: "Oracle Linux Ksplice User's Guide: each update is a pair of modules ksplice_<id> and ksplice_<id>_<target>_new (lsmod), applied by uptrack-upgrade or ksplice", url: "https://docs.oracle.com/en/operating-systems/ksplice/" },
  },
  {
    id: "kmod:kpatch",
    tool: "kpatch (RHEL kernel live patching)",
    module: /^kpatch_\d+(?:_\d+){2,}$/,
    packages: ["kpatch"],
    programs: ["kpatch"],
    source: { kind: "doc", name: "RHEL 9 Managing, monitoring and updating the kernel, applying patches with kernel live patching: kpatch-patch packages load modules named kpatch_<kernel version>_<n>_<n> through kpatch.service", url: "https://docs.redhat.com/en/documentation/red_hat_enterprise_linux/9/html/managing_monitoring_and_updating_the_kernel/applying-patches-with-kernel-live-patching_managing-monitoring-and-updating-the-kernel" },
  },
  {
    id: "kmod:canonical-livepatch",
    tool: "Canonical Livepatch",
    module: /^lkp_Ubuntu_[0-9]+_[0-9]+_[0-9]+_[0-9_]+_[a-z0-9]+_[0-9]+$/,
    packages: ["canonical-livepatch"],
    programs: ["canonical-livepatchd", "canonical-livepatch"],
    source: { kind: "doc", name: "Ubuntu Livepatch: the canonical-livepatch snap's daemon loads lkp_Ubuntu_<kernel>_<flavour>_<patch> modules (canonical-livepatch status --verbose)", url: "https://ubuntu.com/security/livepatch/docs" },
  },
  {
    id: "kmod:systemtap",
    tool: "SystemTap",
    module: /^stap_[0-9a-f]{32}_[0-9]+$/,
    packages: ["systemtap", "systemtap-runtime"],
    programs: ["staprun", "stapio", "stap"],
    source: { kind: "doc", name: "SystemTap Beginners Guide: stap compiles each script into a module stap_<hash>_<pid> that staprun loads and unloads", url: "https://sourceware.org/systemtap/SystemTap_Beginners_Guide/" },
  },
];

/** The tool that loaded this module, when the name has its shape and the tool is on the host. */
export function livePatchModule(name: string, packages: ReadonlySet<string>, programs: ReadonlySet<string>): LivePatchTool | undefined {
  return LIVE_PATCH_TOOLS.find((t) => t.module.test(name) && (t.packages.some((p) => packages.has(p)) || t.programs.some((p) => programs.has(p))));
}
