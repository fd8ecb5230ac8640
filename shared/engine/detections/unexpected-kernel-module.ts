// Loaded kernel modules that are known rootkits or outside a common cloud-server baseline.
import { rowsOf, str, tagList } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";

const ROOTKITS: ReadonlySet<string> = new Set([
  "diamorphine", "reptile", "reptile_module", "suterusu", "adore", "adore_ng", "knark", "kovid", "rootfoo", "nuk3gh0st",
  "khook", "vlany", "bds_vfs", "enyelkm", "modhide", "azazel", "puszek", "singularity", "brokepkg",
]);

/** Modules commonly loaded on cloud VMs and container hosts. */
const BASELINE: ReadonlySet<string> = new Set([
  "ext4", "xfs", "btrfs", "overlay", "mbcache", "jbd2", "crc16", "libcrc32c", "crc32c_generic", "crc32c_intel", "crc32_pclmul",
  "crct10dif_pclmul", "ghash_clmulni_intel", "aesni_intel", "crypto_simd", "cryptd", "sha256_ssse3", "sha512_ssse3", "polyval_clmulni",
  "nf_tables", "nfnetlink", "nf_conntrack", "nf_defrag_ipv4", "nf_defrag_ipv6", "nf_nat", "nf_reject_ipv4", "nft_compat", "nft_chain_nat",
  "nft_counter", "ip_tables", "ip6_tables", "x_tables", "iptable_filter", "iptable_nat", "ip6table_filter", "xt_conntrack",
  "xt_MASQUERADE", "xt_addrtype", "xt_tcpudp", "xt_state", "xt_comment", "xt_mark", "ipt_REJECT", "br_netfilter", "bridge", "stp", "llc",
  "veth", "vxlan", "udp_tunnel", "ip6_udp_tunnel", "tls", "wireguard", "virtio_net", "virtio_blk", "virtio_scsi", "virtio_pci",
  "virtio_rng", "virtio_console", "virtio_balloon", "net_failover", "failover", "ena", "nvme", "nvme_core", "xen_blkfront",
  "xen_netfront", "hv_vmbus", "hv_netvsc", "hv_storvsc", "kvm", "kvm_intel", "kvm_amd", "irqbypass", "i2c_piix4", "serio_raw",
  "psmouse", "floppy", "ata_generic", "ata_piix", "libata", "scsi_mod", "sd_mod", "sg", "dm_mod", "autofs4", "loop", "binfmt_misc",
  "joydev", "input_leds", "mac_hid", "sch_fq_codel", "msr", "drm", "efi_pstore", "configfs", "fuse", "squashfs", "zram", "isofs",
  "vfat", "fat", "nls_utf8", "nls_ascii", "intel_rapl_msr", "intel_rapl_common", "rapl", "pcspkr", "evdev", "button", "qemu_fw_cfg",
  "ip_vs", "nf_conntrack_netlink", "xfrm_user", "xfrm_algo", "af_packet_diag", "unix_diag", "inet_diag", "tcp_diag", "nfsd", "nfs",
  "lockd", "grace", "sunrpc", "drm_kms_helper", "cirrus", "bochs", "ttm", "i2c_core", "crc64_rocksoft", "crc64", "t10_pi",
]);

export const unexpectedKernelModule = defineDetection({
  id: "unexpected-kernel-module",
  title: "Unexpected kernel module",
  tables: ["kernel_modules"],
  severity: "medium",
  attack: ["T1547.006", "T1014"],
  maturity: "experimental",
  category: "persistence",
  keywords: ["kernel module", "kernel modules", "lkm", "rootkit", "kernel", "insmod", "modprobe"],
  false_positives: "Hardware and vendor drivers (GPU, storage, EDR sensors) outside the cloud baseline; add them to allowed_kmods.",
  advice: {
    triage: ["Run modinfo on the module on {hosts}: signer, file path, package owner."],
    containment: ["For a known rootkit, isolate {hosts}: the kernel can no longer be trusted."],
    investigation: ["Compare the module list against hosts of the same role; look for hidden files and processes."],
    remediation: ["Reimage hosts with a rootkit module; add legitimate drivers to the allowed_kmods tag."],
  },
  baseline_tag: "allowed_kmods",
  evaluate(host) {
    const allowed = new Set(tagList(host.tags, "allowed_kmods"));
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "kernel_modules")) {
      const name = str(row, "name");
      if (name === "" || allowed.has(name)) continue;
      const rootkit = ROOTKITS.has(name.toLowerCase());
      if (!rootkit && BASELINE.has(name)) continue;
      hits.push({
        summary: rootkit
          ? `Kernel module ${name} is loaded: the name of a known Linux rootkit.`
          : `Kernel module ${name} (${str(row, "status") || "status unknown"}) is outside the common baseline for this kind of host.`,
        evidence: [{ table: "kernel_modules", row }],
        severity: rootkit ? "high" : undefined,
        entity: `kmod:${name}`,
      });
    }
    return hits;
  },
});
