// Kernel module names of Debian 11's 5.10 kernels (amd64 and arm64) that no newer list has (generated: see
// docs/baselines.md): modules since merged, renamed or built in (nft_counter became part of nf_tables in 5.13), which
// hosts on older kernels (Debian 11, Ubuntu 20.04, RHEL 8's 4.18, Amazon Linux 2's 5.10) still load.
import type { SourceRef } from "./types.js";

export const DEBIAN_5_10_SOURCE: SourceRef = { kind: "debian-package", name: "linux-image-5.10.0-32-amd64 and linux-image-5.10.0-32-arm64", version: "5.10.223-1", release: "bullseye", detail: "every .ko under /lib/modules absent from the bookworm lists (dpkg -c)" };
export const DEBIAN_5_10_BUILTIN_SOURCE: SourceRef = { kind: "debian-package", name: "linux-image-5.10.0-32-amd64 and linux-image-5.10.0-32-arm64", version: "5.10.223-1", release: "bullseye", detail: "modules built into the kernel images (modules.builtin) absent from every list above" };

/** 97 module names, sorted, space-separated. */
export const DEBIAN_5_10_MODULES = `
adm1021 aes_arm64 ambassador amd64_edac_mod amd_energy ashmem_linux aspeed_pwm_tacho blake2s_generic blake2s_x86_64 bochs_drm budget_patch cpia2
cyclades dax_pmem_compat dax_pmem_core dlci dpt_i2o ehci_tegra esd_usb2 firestream gdth glue_helper goodix gtco hisi_trng_v2 hns_roce_hw_v1 horizon
hp_wireless hyperv_fb i2400m i2400m_usb i2c_multi_instantiate i40iw intel_cht_int33fe isicom leds_clevo_mail lmc max6642 meye nand_ecc nd_blk
nf_flow_table_ipv4 nf_flow_table_ipv6 nf_log_arp nf_log_bridge nf_log_common nf_log_ipv4 nf_log_ipv6 nf_log_netdev nft_counter oprofile phy_qcom_qmp
pktcdvd r8712u raw rc_tango rmd128 rmd256 rmd320 rocket rsxx salsa20_generic sir_ir skd snd_soc_rockchip_pcm snd_soc_sst_broadwell snd_soc_sst_haswell
snd_soc_tegra20_spdif snd_soc_tegra_alc5632 snd_soc_tegra_max98090 snd_soc_tegra_rt5640 snd_soc_tegra_rt5677 snd_soc_tegra_trimslice
snd_soc_tegra_utils snd_soc_tegra_wm8753 snd_sof_intel_byt snd_sof_intel_ipc stkwebcam sun4i_backend sun4i_drm_hdmi sun4i_frontend surface3_button
synclink synclinkmp tag_edsa tgr192 tm6000 tm6000_alsa tm6000_dvb tuner_xc2028 uPD98402 umem vfio_mdev vxge wimax zatm zr364xx
`;

/** 3 module names built in, sorted, space-separated. */
export const DEBIAN_5_10_BUILTIN_MODULES = `
clk_rk3399 intel_soc_pmic of_touchscreen
`;
