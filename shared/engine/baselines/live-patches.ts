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
  /** The tool's running program, by its full path (a snap's is in no package table); a name alone is anyone's. */
  program: RegExp;
  /** The module must be named on that program's command line (SystemTap's staprun names the module it runs). */
  namedByProgram?: true;
  source: SourceRef;
}

export const LIVE_PATCH_TOOLS: readonly LivePatchTool[] = [
  {
    id: "kmod:ksplice",
    tool: "Oracle Ksplice",
    module: /^ksplice_[a-z0-9]{8}(?:_[a-z0-9]+_(?:new|old))?$/,
    packages: ["uptrack", "ksplice", "ksplice-tools", "uptrack-offline"],
    program: /^\/usr\/s?bin\/(?:uptrack-upgrade|ksplice)$/,
    source: { kind: "doc", name: "Oracle Linux Ksplice User's Guide: each update is a pair of modules ksplice_<id> and ksplice_<id>_<target>_new (lsmod), applied by uptrack-upgrade or ksplice", url: "https://docs.oracle.com/en/operating-systems/ksplice/" },
  },
  {
    id: "kmod:kpatch",
    tool: "kpatch (RHEL kernel live patching)",
    module: /^kpatch_\d+(?:_\d+){2,}$/,
    packages: ["kpatch"],
    program: /^\/usr\/sbin\/kpatch$/,
    source: { kind: "doc", name: "RHEL 9 Managing, monitoring and updating the kernel, applying patches with kernel live patching: kpatch-patch packages load modules named kpatch_<kernel version>_<n>_<n> through kpatch.service", url: "https://docs.redhat.com/en/documentation/red_hat_enterprise_linux/9/html/managing_monitoring_and_updating_the_kernel/applying-patches-with-kernel-live-patching_managing-monitoring-and-updating-the-kernel" },
  },
  {
    id: "kmod:canonical-livepatch",
    tool: "Canonical Livepatch",
    module: /^lkp_Ubuntu_[0-9]+_[0-9]+_[0-9]+_[0-9_]+_[a-z0-9]+_[0-9]+$/,
    packages: ["canonical-livepatch"],
    program: /^\/snap\/canonical-livepatch\/(?:\d+|current)\/canonical-livepatchd$/,
    source: { kind: "doc", name: "Ubuntu Livepatch: the canonical-livepatch snap's daemon loads lkp_Ubuntu_<kernel>_<flavour>_<patch> modules (canonical-livepatch status --verbose)", url: "https://ubuntu.com/security/livepatch/docs" },
  },
  {
    id: "kmod:systemtap",
    tool: "SystemTap",
    module: /^stap_[0-9a-f]{32}_[0-9]+$/,
    packages: [],
    program: /^\/usr\/(?:bin\/staprun|libexec\/systemtap\/stapio)$/,
    namedByProgram: true,
    source: { kind: "doc", name: "SystemTap Beginners Guide: stap compiles each script into a module stap_<hash>_<pid> that staprun loads and unloads (kept only while staprun or stapio runs it)", url: "https://sourceware.org/systemtap/SystemTap_Beginners_Guide/" },
  },
  {
    id: "kmod:mellanox-mft",
    tool: "NVIDIA (Mellanox) Firmware Tools",
    module: /^mst_pci(?:conf)?$/,
    packages: ["kernel-mft", "kernel-mft-dkms", "mft"],
    program: /^\/usr\/bin\/mst$/,
    source: { kind: "doc", name: "NVIDIA Firmware Tools (MFT) documentation: `mst start` loads the mst_pci and mst_pciconf modules of the kernel-mft package, which create /dev/mst devices", url: "https://docs.nvidia.com/networking/display/mftv4280/" },
  },
];

/** The tool that loaded this module, when the name has its shape and the tool is on the host. */
export function livePatchModule(name: string, packages: ReadonlySet<string>, processes: ReadonlyArray<{ path: string; cmdline: string }>): LivePatchTool | undefined {
  return LIVE_PATCH_TOOLS.find((t) => {
    if (!t.module.test(name)) return false;
    const running = processes.filter((p) => t.program.test(p.path));
    if (t.namedByProgram === true) return running.some((p) => p.cmdline.includes(name));
    return t.packages.some((p) => packages.has(p)) || running.length > 0;
  });
}
