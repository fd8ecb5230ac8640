// Libraries that trojanize OpenSSH from inside sshd's address space, by file name. Ebury (Operation Windigo) replaces
// the libkeyutils that sshd loads through libkrb5 with a credential stealer and backdoor of the same soname; its
// later versions hide under other short names. Used by sshd-library-backdoor (known_bad).

export interface SshBackdoorLibrary {
  /** The file name as installed, or `dir/name` when only that placement is the backdoor's. */
  name: string;
  family: string;
  source: string;
}

const ESET = "ESET, Operation Windigo (2014) and Ebury: ten years on (2024); CERT-Bund's Ebury FAQ; the Ebury file lists of public rootkit checkers (cPanel Security Advisor, rkhunter)";

export const SSH_BACKDOOR_LIBRARIES: readonly SshBackdoorLibrary[] = [
  ...["libkeyutils.so.1.3.0", "libkeyutils.so.1.3.2", "libkeyutils-1.2.so.0", "libkeyutils-1.2.so.2"].map((name) => ({ name, family: "Ebury (a libkeyutils look-alike)", source: ESET })),
  ...["libns2.so", "libns5.so", "libpw3.so", "libpw5.so", "libsbr.so", "libslr.so", "libtsr.so", "libtsq.so", "libhdx.so", "libkeystats.so"].map((name) => ({ name, family: "Ebury (its later library names)", source: ESET })),
  // keyutils never installs into the loader's tls/ directory; libkeyutils.so.1.9 is a real name under a multiarch
  // directory (Debian bullseye, Ubuntu 20.04-22.04) but not directly in /lib or /lib64, where Ebury put it on RHEL.
  ...["tls/libkeyutils.so.1", "tls/libkeyutils.so.1.5"].map((name) => ({ name, family: "Ebury (libkeyutils in the loader's tls/ directory)", source: ESET })),
  // The xz backdoor ships in liblzma 5.6.0 and 5.6.1 and reaches sshd through libsystemd; its file names the version.
  ...["liblzma.so.5.6.0", "liblzma.so.5.6.1"].map((name) => ({ name, family: "the xz/liblzma backdoor (CVE-2024-3094)", source: "oss-security 2024-03-29, Andres Freund: backdoor in upstream xz/liblzma leading to ssh server compromise; CISA alert 2024-03-29" })),
];

const EBURY_RHEL_19 = /^\/lib(?:64)?\/libkeyutils\.so\.1\.9$/;

/** The backdoor library a mapped path names, if any. */
export function sshBackdoorLibrary(path: string): SshBackdoorLibrary | undefined {
  const parts = path.split("/");
  const file = parts[parts.length - 1] ?? "";
  const inDir = `${parts[parts.length - 2] ?? ""}/${file}`;
  if (EBURY_RHEL_19.test(path)) return { name: "libkeyutils.so.1.9", family: "Ebury (libkeyutils.so.1.9 in /lib or /lib64, on RHEL)", source: ESET };
  return SSH_BACKDOOR_LIBRARIES.find((l) => l.name === file || l.name === inDir);
}

/**
 * keyutils installs its library as libkeyutils.so.1.<minor> (1.3 up to 1.10 across the distributions' releases):
 * any other version shape (three parts, a dot-prefixed file) is not one of its files. Source: keyutils' Makefile
 * (SONAME libkeyutils.so.1, the file libkeyutils.so.$(LIBVERSION)) and the distributions' file lists.
 */
export function notAKeyutilsFile(fileName: string): boolean {
  if (!/^\.?libkeyutils/.test(fileName)) return false;
  return fileName.startsWith(".") || !/^libkeyutils\.so(?:\.1(?:\.\d+)?)?$/.test(fileName);
}
