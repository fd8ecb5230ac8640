// Out-of-tree kernel modules that ordinary production hosts load: DKMS drivers, hypervisor tools, security and
// backup agents. Names as /proc/modules shows them; `prefixes` cover names that carry a version suffix.
import type { SourceRef } from "./types.js";

export interface VendorModuleGroup {
  id: string;
  vendor: string;
  names: readonly string[];
  prefixes?: readonly string[];
  source: SourceRef;
}

export const VENDOR_MODULES: readonly VendorModuleGroup[] = [
  {
    id: "kmod:nvidia",
    vendor: "NVIDIA GPU driver (DKMS)",
    names: ["nvidia", "nvidia_drm", "nvidia_modeset", "nvidia_uvm", "nvidia_peermem", "nvidia_fs", "nvidia_vgpu_vfio", "gdrdrv"],
    source: {
      kind: "doc",
      name: "NVIDIA Driver Installation Guide; Debian non-free nvidia-kernel-dkms; NVIDIA GPUDirect Storage (nvidia_fs) and GDRCopy (gdrdrv)",
      url: "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/",
    },
  },
  {
    id: "kmod:raspberrypi",
    vendor: "Raspberry Pi OS kernel (the Foundation's tree: VideoCore, camera, codec and RP1 drivers not in Debian's)",
    names: ["vchiq", "snd_bcm2835", "uio_pdrv_genirq", "rpi_hevc_dec", "raspberrypi_gpiomem", "raspberrypi_hwmon", "v4l2_mem2mem", "videobuf2_dma_contig", "pisp_be", "rpivid_hevc"],
    prefixes: ["bcm2835_", "bcm2711_", "bcm2712_", "rp1_", "vc_sm_", "rpi_", "rpivid_"],
    source: {
      kind: "doc",
      name: "Raspberry Pi OS kernel (github.com/raspberrypi/linux): drivers/staging/vc04_services (vchiq, vc_sm_cma, bcm2835-codec, bcm2835-isp, bcm2835-mmal-vchiq, snd-bcm2835), the RP1 and rpivid drivers; uio_pdrv_genirq is loaded on a stock image for /dev/uio",
      url: "https://www.raspberrypi.com/documentation/computers/linux_kernel.html",
    },
  },

  {
    id: "kmod:zfs",
    vendor: "OpenZFS (zfs-dkms)",
    names: ["zfs", "spl", "zavl", "znvpair", "zunicode", "zcommon", "icp", "zlua", "zzstd"],
    source: { kind: "doc", name: "Debian contrib zfs-dkms; OpenZFS module layout (module/ in openzfs/zfs)", url: "https://openzfs.github.io/openzfs-docs/" },
  },
  {
    id: "kmod:virtualbox",
    vendor: "Oracle VirtualBox host and guest drivers",
    names: ["vboxdrv", "vboxnetflt", "vboxnetadp", "vboxpci", "vboxguest", "vboxsf", "vboxvideo"],
    source: { kind: "doc", name: "VirtualBox manual: the VirtualBox kernel modules", url: "https://www.virtualbox.org/manual/ch02.html" },
  },
  {
    id: "kmod:vmware-workstation",
    vendor: "VMware Workstation / Player host drivers",
    names: ["vmmon", "vmnet"],
    source: { kind: "doc", name: "VMware Workstation on Linux: vmmon and vmnet host modules (vmware-host-modules)" },
  },
  {
    id: "kmod:crowdstrike-falcon",
    vendor: "CrowdStrike Falcon sensor for Linux",
    names: ["falcon_lsm_serviceable", "falcon_nf_netcontain", "falcon_kal"],
    prefixes: ["falcon_lsm_pinned_"],
    source: { kind: "doc", name: "CrowdStrike Falcon sensor for Linux deployment guide (kernel-mode sensor modules)" },
  },
  {
    id: "kmod:trellix-ens",
    vendor: "Trellix (McAfee) Endpoint Security for Linux",
    names: [],
    prefixes: ["mfe_aac_", "mfe_fileaccess_", "mfeaac", "mfe_kmodloader"],
    source: { kind: "doc", name: "Trellix ENS for Linux product guide (on-access scan kernel modules mfe_aac/mfe_fileaccess)" },
  },
  {
    id: "kmod:sophos-talpa",
    vendor: "Sophos Anti-Virus for Linux on-access scanning (Talpa)",
    names: ["talpa_core", "talpa_linux", "talpa_syscallhook", "talpa_vfshook", "talpa_pedconnector", "talpa_pedevice", "talpa_vcdevice"],
    source: { kind: "doc", name: "Sophos Anti-Virus for Linux: Talpa kernel modules (sophos/talpa, GPL)" },
  },
  {
    id: "kmod:falco-sysdig",
    vendor: "Falco / Sysdig kernel driver",
    names: ["scap", "falco", "falco_probe", "sysdig_probe"],
    source: { kind: "doc", name: "Falco documentation: kernel module driver (named scap since libs 0.10, falco/falco_probe before)", url: "https://falco.org/docs/concepts/event-sources/kernel/" },
  },
  {
    id: "kmod:aws-efa",
    vendor: "AWS Elastic Fabric Adapter (out-of-tree build from the EFA installer)",
    names: ["efa", "efa_nv_peermem"],
    source: { kind: "doc", name: "AWS EC2 User Guide: Elastic Fabric Adapter installer", url: "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html" },
  },
  {
    id: "kmod:oracle",
    vendor: "Oracle Database on Linux (ASMLib, ACFS/ADVM)",
    names: ["oracleasm", "oracleacfs", "oracleadvm", "oracleoks", "oracleafd"],
    source: { kind: "doc", name: "Red Hat kmod-oracleasm (ASMLib kernel driver); Oracle Grid Infrastructure: ACFS/ADVM drivers oracleacfs, oracleadvm, oracleoks, and the ASM Filter Driver oracleafd" },
  },
  {
    id: "kmod:backup-snapshot",
    vendor: "Block-level backup agents (Veeam Agent for Linux, Datto, Acronis)",
    names: ["veeamsnap", "blksnap", "bdevfilter", "veeamblksnap", "dattobd", "snapapi26", "elastio_snap"],
    source: { kind: "doc", name: "Veeam Agent for Linux user guide (veeamsnap; blksnap with its bdevfilter on kernels 6.x); datto/dattobd README; Acronis snapapi26" },
  },
  {
    id: "kmod:ubuntu-extra",
    vendor: "Ubuntu kernel modules outside Debian's tree",
    names: ["aufs", "shiftfs"],
    source: { kind: "doc", name: "Ubuntu kernel (linux-modules-*-generic): aufs and shiftfs patches carried by Ubuntu" },
  },
  {
    id: "kmod:mellanox-ofed",
    vendor: "NVIDIA/Mellanox OFED and HPC drivers",
    names: ["knem", "xpmem", "mlnx_compat", "mlx_compat"],
    source: { kind: "doc", name: "NVIDIA MLNX_OFED documentation (mlx_compat, knem); HPE/Cray xpmem" },
  },
];
