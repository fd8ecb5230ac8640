// PAM modules the distributions ship, by name (pam_unix, pam_sss...): a module an authenticating program (sshd, sudo,
// su, login) has mapped that is none of these, or is mapped from outside the system's PAM directories, is what a PAM
// backdoor looks like (ATT&CK T1556.003). Read from Debian bookworm's PAM packages with `apt-get download <pkg>` and
// `dpkg -c` (every security/*.so), plus modules other distributions ship under names Debian does not (docs/baselines.md).
import type { SourceRef } from "./types.js";

/** The packages read, as name=version, space-separated. */
export const DEBIAN_PAM_PACKAGES = `
libpam-abl=0.6.0-6 libpam-afs-session=2.6-3+b1 libpam-apparmor=3.0.8-3 libpam-biometric=1.2.2.1-1
libpam-cap=1:2.66-4+deb12u3+b1 libpam-ccreds=10-8 libpam-cgfs=1:5.0.2-1+deb12u4 libpam-chroot=0.9-5.1
libpam-duo=1.11.3-1+b1 libpam-fprintd=1.94.2-2 libpam-fscrypt=0.3.3-1+b6 libpam-geoip=2.1.1-6
libpam-gnome-keyring=42.1-1+b2 libpam-google-authenticator=20191231-2 libpam-heimdal=4.11-1+b1
libpam-krb5=4.11-1+b1 libpam-kwallet5=5.27.5-2 libpam-ldapd=0.9.12-4 libpam-modules=1.5.2-6+deb12u3
libpam-mount=2.19-1 libpam-oath=2.6.7-3.1+deb12u1 libpam-passwdqc=2.0.2-1+b1 libpam-pkcs11=0.6.12-1+deb12u1
libpam-poldi=0.4.2+git20161115.553060d-1.2 libpam-pwquality=1.4.5-1+b1
libpam-python=1.1.0~git20220701.1d4e111-0.3+b1 libpam-radius-auth=2.0.0-1 libpam-script=1.1.9-5+b1
libpam-shield=0.9.6-1.3+b2 libpam-slurm-adopt=22.05.8-4+deb12u3 libpam-slurm=22.05.8-4+deb12u3
libpam-snapper=0.10.4-1 libpam-ssh-agent-auth=0.10.3-4 libpam-sss=2.8.2-4+deb12u1
libpam-systemd=252.39-1~deb12u2 libpam-tmpdir=0.09+b2 libpam-u2f=1.1.0-1.1+deb12u1
libpam-winbind=2:4.17.12+dfsg-0+deb12u4 libpam-x2go=0.0.2.0-3 libpam-yubico=2.26-1.1+b1
`;

export const DEBIAN_PAM_SOURCE: SourceRef = {
  kind: "debian-package",
  name: "libpam-modules and 39 other PAM packages",
  release: "bookworm",
  detail: "every lib/<triplet>/security/*.so (dpkg -c) of the packages in DEBIAN_PAM_PACKAGES",
};

/** 83 module names (without .so), sorted, space-separated. */
export const DEBIAN_PAM_MODULES = `
pam_abl pam_access pam_afs_session pam_apparmor pam_biometric pam_cap pam_ccreds pam_cgfs pam_chroot pam_debug
pam_deny pam_duo pam_echo pam_env pam_exec pam_faildelay pam_faillock pam_filter pam_fprintd pam_fscrypt
pam_ftp pam_geoip pam_gnome_keyring pam_google_authenticator pam_group pam_issue pam_keyinit pam_krb5
pam_kwallet5 pam_lastlog pam_ldap pam_limits pam_listfile pam_localuser pam_loginuid pam_mail pam_mkhomedir
pam_motd pam_mount pam_namespace pam_nologin pam_oath pam_passwdqc pam_permit pam_pkcs11 pam_poldi
pam_pwhistory pam_pwquality pam_python pam_radius_auth pam_rhosts pam_rootok pam_script pam_securetty
pam_selinux pam_sepermit pam_setquota pam_shells pam_shield pam_slurm pam_slurm_adopt pam_snapper
pam_ssh_agent_auth pam_sss pam_sss_gss pam_stress pam_succeed_if pam_systemd pam_time pam_timestamp pam_tmpdir
pam_tty_audit pam_u2f pam_umask pam_unix pam_userdb pam_usertype pam_warn pam_wheel pam_winbind pam_x2go
pam_xauth pam_yubico
`;

export const OTHER_DISTRO_PAM_SOURCE: SourceRef = {
  kind: "doc",
  name: "PAM modules of Fedora/RHEL (pam, sssd, oddjob, systemd-homed), Ubuntu (libpam-extrausers) and SUSE (pam_unix2), and older Linux-PAM (pam_tally, pam_tally2)",
  detail: "module names from each package's file list",
};

export const OTHER_DISTRO_PAM_MODULES = "pam_systemd_home pam_oddjob_mkhomedir pam_extrausers pam_unix2 pam_tally pam_tally2 pam_lastlog2 pam_console pam_postgresok pam_ecryptfs pam_zfs_key pam_gdm pam_unix_auth pam_unix_acct pam_unix_passwd pam_unix_session";
